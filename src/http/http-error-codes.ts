// The codes only the HTTP layer answers: the framework's own 4xx (a body too large, a media type
// it cannot parse, a path too long, conditional and range requests). No domain rule raises them;
// the domain's codes are in src/domain/errors/error-codes.ts. docs/errors.md lists both.

export const HTTP_ERROR_CATALOGUE = {
  precondition_failed: { status: 412, message: 'Precondition Failed' },
  payload_too_large: { status: 413, message: 'request body is too large' },
  uri_too_long: { status: 414, message: 'a path parameter is too long' },
  unsupported_media_type: { status: 415, message: 'request body must be application/json' },
  range_not_satisfiable: { status: 416, message: 'Range Not Satisfiable' },
} as const satisfies Record<string, { readonly status: number; readonly message: string }>;

export type HttpErrorCode = keyof typeof HTTP_ERROR_CATALOGUE;
