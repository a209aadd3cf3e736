import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import {
  WRONG_CURRENT_PASSWORD,
  changeOwnPassword,
} from '../../domain/access/set-password-links.js';
import { MIN_PASSWORD_LENGTH } from '../../domain/access/passwords.js';
import type { PortalView } from '../context.js';
import { requirePermission } from '../context.js';
import { FLASH_COOKIE, SESSION_COOKIE, clearCookie, setCookie } from '../cookies.js';
import { csrfField, formValue, textField } from '../forms.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';

// Your account: who you are in this organisation, and a password change, which ends every one
// of your sessions (this one too), so you sign in again with the new password.

type PasswordErrors = Partial<Record<'current' | 'password' | 'confirm', string>>;

function sendAccountPage(
  reply: FastifyReply,
  view: PortalView,
  errors: PasswordErrors = {},
  status = 200,
): FastifyReply {
  const user = view.user;
  const body = html`<dl class="details">
      <dt>Name</dt>
      <dd>${user.firstName} ${user.lastName}</dd>
      <dt>Email</dt>
      <dd>${user.email}</dd>
      <dt>Role</dt>
      <dd>${user.role}</dd>
      <dt>Time zone</dt>
      <dd>${user.timeZone}</dd>
    </dl>
    <section aria-labelledby="change-password">
      <h2 id="change-password">Change your password</h2>
      <p>Changing it signs you out everywhere, here too.</p>
      <form method="post" action="/portal/account/password" class="stack">
        ${csrfField(view)}
        ${textField({ name: 'current', label: 'Current password', type: 'password', required: true, autocomplete: 'current-password', error: errors.current })}
        ${textField({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', error: errors.password, hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
        ${textField({ name: 'confirm', label: 'Repeat the new password', type: 'password', required: true, autocomplete: 'new-password', error: errors.confirm })}
        <button type="submit" class="primary">Change password</button>
      </form>
    </section>`;
  return sendPage(reply, view, { title: 'Your account', current: 'account', body, status });
}

async function changePassword(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const view = requirePermission(request, 'read');
  const current = formValue(request.body, 'current');
  const next = formValue(request.body, 'password');
  if (next !== formValue(request.body, 'confirm')) {
    return sendAccountPage(
      reply,
      view,
      { confirm: 'The two new passwords are not the same.' },
      400,
    );
  }
  try {
    await changeOwnPassword(deps, view.user, { current, next, source: request.ip });
  } catch (error) {
    if (!(error instanceof DomainError) || error.status !== 400) throw error;
    const field = error.message === WRONG_CURRENT_PASSWORD ? 'current' : 'password';
    return sendAccountPage(reply, view, { [field]: error.message }, 400);
  }
  const secure = deps.config.portal.secureCookie;
  clearCookie(reply, SESSION_COOKIE, secure);
  setCookie(
    reply,
    FLASH_COOKIE,
    'Your password is changed and you are signed out everywhere. Sign in with the new password.',
    { secure, maxAge: 60 },
  );
  return reply.code(303).header('location', '/portal/sign-in').send();
}

export function registerAccountPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/account', async (request, reply) =>
    sendAccountPage(reply, requirePermission(request, 'read')),
  );
  app.post('/portal/account/password', async (request, reply) =>
    changePassword(deps, request, reply),
  );
}
