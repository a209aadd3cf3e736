import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors/error-codes.js';
import { commitUnknown, databaseBusy, loginRefused } from '../store/conflicts.js';
import { html } from './html.js';
import { renderPage, renderPublicPage } from './layout.js';

// Errors inside the portal are HTML pages, not the API's JSON: the status of the error
// catalogue, its message, and a way back.

function titleFor(status: number): string {
  if (status === 401) return 'Sign in again';
  if (status === 403) return 'Not allowed';
  if (status === 404) return 'Not found';
  if (status === 409) return 'Conflict';
  if (status === 429) return 'Too many requests';
  if (status === 503) return 'Busy: try again';
  if (status >= 500) return 'Something went wrong';
  return 'Cannot do that';
}

export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  heading?: string,
): FastifyReply {
  const view = request.portal?.view;
  const title = heading ?? titleFor(status);
  const body = html`<p class="error" role="alert">${message}</p>
    <p>
      <a href="${view === undefined ? '/portal/sign-in' : '/portal'}"
        >${view === undefined ? 'Go to sign-in' : 'Back to the overview'}</a
      >
    </p>`;
  const page =
    view === undefined
      ? renderPublicPage(title, body)
      : renderPage(view, { title, current: 'overview', body });
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

const BUSY_MESSAGE = 'The database is busy and nothing was changed. Try again in a moment.';
const UNKNOWN_MESSAGE =
  'The connection to the database was lost while saving, so this change may or may not have been saved. Check before trying again.';

/** The answer to a path under /portal that is no page. */
export const NO_SUCH_PAGE = 'There is no such page in the portal.';

function statusAndMessage(
  error: FastifyError | DomainError | Error,
  request: FastifyRequest,
): {
  status: number;
  message: string;
  retryAfterSeconds?: number;
  title?: string;
} {
  // A path that is no page is a 404 whatever its body (a form no page parses: 415, 413), as in the
  // API; what loading its signed-in view met (a busy database) is answered as on every page.
  if (request.is404 && !databaseBusy(error) && !loginRefused(error) && !commitUnknown(error)) {
    return { status: 404, message: NO_SUCH_PAGE };
  }
  if (error instanceof DomainError) {
    return {
      status: error.status,
      message: error.message,
      ...(error.retryAfterSeconds === undefined
        ? {}
        : { retryAfterSeconds: error.retryAfterSeconds }),
    };
  }
  const statusCode = (error as FastifyError).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, message: error.message };
  }
  // As the API's 503 commit_unknown: whether it was saved is not known, so no Retry-After.
  if (commitUnknown(error)) {
    return { status: 503, message: UNKNOWN_MESSAGE, title: 'Saved or not: check first' };
  }
  // As the API's 503 database_busy (http/error-handler.ts): nothing was written, a retry is safe.
  if (databaseBusy(error) || loginRefused(error)) {
    return { status: 503, message: BUSY_MESSAGE, retryAfterSeconds: 1 };
  }
  return {
    status: 500,
    message: 'The portal could not do this. Try again; if it persists, tell your operator.',
  };
}

export function installPortalErrors(scope: FastifyInstance): void {
  scope.setErrorHandler(async (error: FastifyError | DomainError | Error, request, reply) => {
    const { status, message, retryAfterSeconds, title } = statusAndMessage(error, request);
    if (databaseBusy(error)) request.log.warn({ err: error }, 'database busy');
    else if (commitUnknown(error)) request.log.error({ err: error }, 'commit outcome unknown');
    else if (status >= 500) request.log.error({ err: error }, 'portal request failed');
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    return sendErrorPage(request, reply, status, message, title);
  });
}
