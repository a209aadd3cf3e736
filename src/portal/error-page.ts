import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors/error-codes.js';
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
  if (status >= 500) return 'Something went wrong';
  return 'Cannot do that';
}

export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
): FastifyReply {
  const view = request.portal?.view;
  const title = titleFor(status);
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

function statusAndMessage(error: FastifyError | DomainError | Error): {
  status: number;
  message: string;
} {
  if (error instanceof DomainError) return { status: error.status, message: error.message };
  const statusCode = (error as FastifyError).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, message: error.message };
  }
  return {
    status: 500,
    message: 'The portal could not do this. Try again; if it persists, tell your operator.',
  };
}

export function installPortalErrors(scope: FastifyInstance): void {
  scope.setErrorHandler(async (error: FastifyError | DomainError | Error, request, reply) => {
    const { status, message } = statusAndMessage(error);
    if (status >= 500) request.log.error({ err: error }, 'portal request failed');
    if (error instanceof DomainError && error.retryAfterSeconds !== undefined) {
      reply.header('retry-after', String(error.retryAfterSeconds));
    }
    return sendErrorPage(request, reply, status, message);
  });
}
