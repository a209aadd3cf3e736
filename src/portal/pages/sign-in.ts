import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import {
  FORGOT_PASSWORD_SENT,
  forgotPassword,
  setPasswordWithLink,
  userOfLink,
  LINK_INVALID,
} from '../../domain/access/set-password-links.js';
import { MIN_PASSWORD_LENGTH } from '../../domain/access/passwords.js';
import { signOut } from '../../domain/access/sessions.js';
import { signIn } from '../../domain/access/sign-in.js';
import { newSecret } from '../../domain/access/secrets.js';
import {
  PRE_SESSION_CSRF_COOKIE,
  SESSION_COOKIE,
  clearCookie,
  readCookie,
  setCookie,
} from '../cookies.js';
import { formError, formValue, textField } from '../forms.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { renderPublicPage } from '../layout.js';

// Sign-in, sign-out, "forgot password" and the one-time set-password link. These forms are
// shown before a session exists, so their CSRF token is a random value in a cookie of its own
// that the form repeats (the plugin compares the two).

const PUBLIC = { config: { portalPublic: true } } as const;

/** The sign-in form's CSRF token: the cookie's if it has one, else a new one set now. */
function preSessionCsrf(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookie(request, PRE_SESSION_CSRF_COOKIE);
  if (existing !== undefined && existing.length >= 32) return existing;
  const token = newSecret();
  setCookie(reply, PRE_SESSION_CSRF_COOKIE, token, {
    secure: request.portal?.secureCookie ?? true,
  });
  return token;
}

function sendPublic(
  reply: FastifyReply,
  status: number,
  title: string,
  body: SafeHtml,
): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(renderPublicPage(title, body));
}

function flashOf(request: FastifyRequest): SafeHtml {
  const flash = request.portal?.flash;
  return flash === undefined ? html`` : html`<p class="flash" role="status">${flash}</p>`;
}

/** Only a path inside the portal, so the next page can never be another site. */
function safeNext(next: string): string {
  return /^\/portal(\/[A-Za-z0-9/_\-.?=&%]*)?$/.test(next) && !next.startsWith('//')
    ? next
    : '/portal';
}

function signInForm(
  request: FastifyRequest,
  reply: FastifyReply,
  input: { email?: string; next?: string; error?: string },
): SafeHtml {
  const csrf = preSessionCsrf(request, reply);
  return html`${flashOf(request)}${formError(input.error)}
    <form method="post" action="/portal/sign-in" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <input type="hidden" name="next" value="${safeNext(input.next ?? '/portal')}" />
      ${textField({ name: 'email', label: 'Email', type: 'email', value: input.email, required: true, autocomplete: 'username' })}
      ${textField({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' })}
      <button type="submit" class="primary">Sign in</button>
    </form>
    <p><a href="/portal/forgot-password">Forgot your password?</a></p>`;
}

function registerSignIn(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/sign-in', PUBLIC, async (request, reply) => {
    if (request.portal?.view !== undefined)
      return reply.code(303).header('location', '/portal').send();
    const next = (request.query as Record<string, unknown>)['next'];
    const body = signInForm(request, reply, { next: typeof next === 'string' ? next : undefined });
    return sendPublic(reply, 200, 'Sign in', body);
  });

  app.post('/portal/sign-in', PUBLIC, async (request, reply) => {
    const email = formValue(request.body, 'email').trim();
    const password = formValue(request.body, 'password');
    const next = safeNext(formValue(request.body, 'next'));
    if (email === '' || password === '') {
      const error = 'Enter your email address and your password.';
      return sendPublic(reply, 400, 'Sign in', signInForm(request, reply, { email, next, error }));
    }
    const result = await signIn(deps, { email, password, source: request.ip });
    if (!result.ok) {
      const body = signInForm(request, reply, { email, next, error: result.message });
      if (result.busy === true) reply.header('retry-after', '1');
      return sendPublic(reply, result.busy === true ? 503 : 401, 'Sign in', body);
    }
    const secure = deps.config.portal.secureCookie;
    clearCookie(reply, PRE_SESSION_CSRF_COOKIE, secure);
    setCookie(reply, SESSION_COOKIE, result.token, {
      secure,
      maxAge: deps.config.portal.sessionMaxHours * 3600,
    });
    return reply.code(303).header('location', next).send();
  });

  app.post('/portal/sign-out', PUBLIC, async (request, reply) => {
    const state = request.portal;
    if (state?.sessionToken !== undefined && state.view !== undefined) {
      await signOut(deps, state.sessionToken, state.view.user, request.ip);
    }
    clearCookie(reply, SESSION_COOKIE, deps.config.portal.secureCookie);
    return reply.code(303).header('location', '/portal/sign-in').send();
  });
}

function registerForgotPassword(app: FastifyInstance, deps: AppDeps): void {
  const form = (request: FastifyRequest, reply: FastifyReply, email: string, error?: string) =>
    html`${formError(error)}
      <p>
        Enter your email address. If it has an account, we send it a link to set a new password.
      </p>
      <form method="post" action="/portal/forgot-password" class="stack">
        <input type="hidden" name="_csrf" value="${preSessionCsrf(request, reply)}" />
        ${textField({ name: 'email', label: 'Email', type: 'email', value: email, required: true, autocomplete: 'username' })}
        <button type="submit" class="primary">Send the link</button>
      </form>
      <p><a href="/portal/sign-in">Back to sign-in</a></p>`;

  app.get('/portal/forgot-password', PUBLIC, async (request, reply) =>
    sendPublic(reply, 200, 'Forgot your password?', form(request, reply, '')),
  );

  app.post('/portal/forgot-password', PUBLIC, async (request, reply) => {
    const email = formValue(request.body, 'email').trim();
    try {
      const unsent = await forgotPassword(deps, email, request.ip);
      for (const { userId, error } of unsent) {
        request.log.error(
          { err: error, userId },
          `a forgot-password link could not be mailed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } catch (error) {
      if (!(error instanceof DomainError) || error.status !== 400) throw error;
      return sendPublic(
        reply,
        400,
        'Forgot your password?',
        form(request, reply, email, 'Enter a valid email address.'),
      );
    }
    const body = html`<p class="flash" role="status">${FORGOT_PASSWORD_SENT}</p>
      <p><a href="/portal/sign-in">Back to sign-in</a></p>`;
    return sendPublic(reply, 200, 'Check your mail', body);
  });
}

function setPasswordForm(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  error?: string,
): SafeHtml {
  return html`<form method="post" action="/portal/set-password" class="stack">
    <input type="hidden" name="_csrf" value="${preSessionCsrf(request, reply)}" />
    <input type="hidden" name="token" value="${token}" />
    ${textField({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', error, hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
    ${textField({ name: 'confirm', label: 'Repeat the new password', type: 'password', required: true, autocomplete: 'new-password' })}
    <button type="submit" class="primary">Set password</button>
  </form>`;
}

function registerSetPassword(app: FastifyInstance, deps: AppDeps): void {
  const invalid = (reply: FastifyReply) =>
    sendPublic(
      reply,
      400,
      'Link not valid',
      html`<p class="error" role="alert">${LINK_INVALID}</p>
        <p><a href="/portal/forgot-password">Ask for a new link</a></p>`,
    );

  app.get('/portal/set-password', PUBLIC, async (request, reply) => {
    const token = (request.query as Record<string, unknown>)['token'];
    if (typeof token !== 'string' || token === '') return invalid(reply);
    const user = await userOfLink(deps, token);
    if (user === undefined) return invalid(reply);
    const intro = html`<p>Choose a password for ${user.email}.</p>`;
    return sendPublic(
      reply,
      200,
      'Set your password',
      html`${intro}${setPasswordForm(request, reply, token)}`,
    );
  });

  app.post('/portal/set-password', PUBLIC, async (request, reply) => {
    const token = formValue(request.body, 'token');
    const password = formValue(request.body, 'password');
    if (password !== formValue(request.body, 'confirm')) {
      const body = setPasswordForm(request, reply, token, 'The two passwords are not the same.');
      return sendPublic(reply, 400, 'Set your password', body);
    }
    try {
      await setPasswordWithLink(deps, token, password, request.ip);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status !== 400) throw error;
      if (error.message === LINK_INVALID) return invalid(reply);
      return sendPublic(
        reply,
        400,
        'Set your password',
        setPasswordForm(request, reply, token, error.message),
      );
    }
    clearCookie(reply, SESSION_COOKIE, deps.config.portal.secureCookie);
    setCookie(reply, 'esim_flash', 'Your password is set. Sign in with it.', {
      secure: deps.config.portal.secureCookie,
      maxAge: 60,
    });
    return reply.code(303).header('location', '/portal/sign-in').send();
  });
}

export function registerSignInPages(app: FastifyInstance, deps: AppDeps): void {
  registerSignIn(app, deps);
  registerForgotPassword(app, deps);
  registerSetPassword(app, deps);
}
