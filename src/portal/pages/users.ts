import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import { PORTAL_ROLES } from '../../domain/access/portal-user.js';
import type { PortalUser } from '../../domain/access/portal-user.js';
import {
  addOrganisationUser,
  changeUserRole,
  listUsersOf,
  removeUser,
} from '../../domain/access/organisation-users.js';
import type { PortalView } from '../context.js';
import { auditActor, redirectWithFlash, requirePermission } from '../context.js';
import { actionForm, csrfField, formError, formValue, selectField, textField } from '../forms.js';
import { formatDateTime } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';

// Users: everyone signed in sees who has access; Admins add users (who get a one-time link to
// set their password, shown here and mailed), change roles and remove users. The last Admin
// can be neither demoted nor removed (the domain refuses).

interface AddForm {
  firstName: string;
  lastName: string;
  email: string;
  role: string;
  phoneNumber: string;
  timeZone: string;
}

const EMPTY_FORM: AddForm = {
  firstName: '',
  lastName: '',
  email: '',
  role: 'Viewer',
  phoneNumber: '',
  timeZone: 'UTC',
};

interface UsersPageState {
  readonly form?: AddForm;
  /** An error of the add form, by field ('' for the form as a whole). */
  readonly addError?: { field: keyof AddForm | ''; message: string };
  /** An error of a row's action. */
  readonly rowError?: { userId: string; message: string };
}

function roleCell(view: PortalView, user: PortalUser): SafeHtml {
  if (!can(view.user.role, 'users.write')) return html`${user.role}`;
  const id = `role-${user.id}`;
  return html`<form method="post" action="/portal/users/${user.id}/role" class="inline">
    ${csrfField(view)}
    <label class="visually-hidden" for="${id}">Role of ${user.firstName} ${user.lastName}</label>
    <select id="${id}" name="role">
      ${PORTAL_ROLES.map((r) => html`<option${r === user.role ? html` selected` : ''}>${r}</option>`)}
    </select>
    <button type="submit">Change role</button>
  </form>`;
}

function userRow(
  view: PortalView,
  user: PortalUser,
  state: UsersPageState,
  onlyAdmin: boolean,
): SafeHtml {
  const error =
    state.rowError?.userId === user.id
      ? html`<p class="error" role="alert">${state.rowError.message}</p>`
      : '';
  // The organisation keeps at least one Admin: the only one is not offered Remove.
  const remove = !can(view.user.role, 'users.write')
    ? ''
    : onlyAdmin
      ? html`<td><span class="hint">The only Admin: add another before removing</span></td>`
      : html`<td>
          ${actionForm(view, `/portal/users/${user.id}/remove`, 'Remove', {
            confirm: `Remove ${user.email}? They lose access at once.`,
            danger: true,
          })}
        </td>`;
  return html`<tr>
    <td>${user.firstName} ${user.lastName}${error}</td>
    <td>${user.email}</td>
    <td>${roleCell(view, user)}</td>
    <td>${formatDateTime(user.createdAt, view.user.timeZone)}</td>
    ${remove}
  </tr>`;
}

function addForm(view: PortalView, state: UsersPageState): SafeHtml {
  const form = state.form ?? EMPTY_FORM;
  const err = (field: keyof AddForm) =>
    state.addError?.field === field ? state.addError.message : undefined;
  return html`<section aria-labelledby="add-user">
    <h2 id="add-user">Add a user</h2>
    ${formError(state.addError?.field === '' ? state.addError.message : undefined)}
    <form method="post" action="/portal/users" class="stack">
      ${csrfField(view)}
      ${textField({ name: 'firstName', label: 'First name', value: form.firstName, required: true, error: err('firstName'), autocomplete: 'off' })}
      ${textField({ name: 'lastName', label: 'Last name', value: form.lastName, required: true, error: err('lastName'), autocomplete: 'off' })}
      ${textField({ name: 'email', label: 'Email', type: 'email', value: form.email, required: true, error: err('email'), autocomplete: 'off' })}
      ${selectField({ name: 'role', label: 'Role', options: PORTAL_ROLES, value: form.role, error: err('role') })}
      ${textField({ name: 'phoneNumber', label: 'Phone number (optional)', type: 'tel', value: form.phoneNumber, error: err('phoneNumber') })}
      ${textField({ name: 'timeZone', label: 'Time zone', value: form.timeZone, error: err('timeZone'), hint: 'An IANA time zone such as Europe/London; dates are shown in it.' })}
      <button type="submit" class="primary">Add user</button>
    </form>
  </section>`;
}

async function sendUsersPage(
  deps: AppDeps,
  view: PortalView,
  reply: FastifyReply,
  state: UsersPageState = {},
  status = 200,
): Promise<FastifyReply> {
  const users = await listUsersOf(deps, view.organisation.id);
  const admin = can(view.user.role, 'users.write');
  const admins = users.filter((u) => u.role === 'Admin').length;
  const body = html`<div class="table-wrap" role="region" tabindex="0" aria-label="Users">
      <table>
        <caption>
          People who can sign in to this organisation
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Added</th>
            ${admin ? html`<th scope="col">Remove</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${users.map((u) => userRow(view, u, state, u.role === 'Admin' && admins === 1))}
        </tbody>
      </table>
    </div>
    ${admin ? addForm(view, state) : ''}`;
  return sendPage(reply, view, { title: 'Users', current: 'users', body, status });
}

/** Which add-form field a domain message is about. */
function fieldOf(message: string): keyof AddForm | '' {
  if (message.startsWith('email') || message.includes('with email')) return 'email';
  if (message.startsWith('first name')) return 'firstName';
  if (message.startsWith('last name')) return 'lastName';
  if (message.startsWith('time zone')) return 'timeZone';
  if (message.startsWith('role')) return 'role';
  return '';
}

function readAddForm(request: FastifyRequest): AddForm {
  const v = (name: keyof AddForm) => formValue(request.body, name).trim();
  return {
    firstName: v('firstName'),
    lastName: v('lastName'),
    email: v('email'),
    role: v('role'),
    phoneNumber: v('phoneNumber'),
    timeZone: v('timeZone') === '' ? 'UTC' : v('timeZone'),
  };
}

function userIdParam(request: FastifyRequest): string {
  const id = (request.params as Record<string, unknown>)['id'];
  return typeof id === 'string' ? id : '';
}

async function onRowError(
  deps: AppDeps,
  view: PortalView,
  reply: FastifyReply,
  userId: string,
  error: unknown,
): Promise<FastifyReply> {
  if (!(error instanceof DomainError) || error.status === 404 || error.status >= 500) throw error;
  return sendUsersPage(
    deps,
    view,
    reply,
    { rowError: { userId, message: error.message } },
    error.status,
  );
}

export function registerUsersPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/users', async (request, reply) =>
    sendUsersPage(deps, requirePermission(request, 'read'), reply),
  );

  app.post('/portal/users', async (request, reply) => {
    const view = requirePermission(request, 'users.write');
    const form = readAddForm(request);
    try {
      const { user, link } = await addOrganisationUser(
        deps,
        auditActor(request),
        view.organisation.id,
        {
          ...form,
          ...(form.phoneNumber === '' ? {} : { phoneNumber: form.phoneNumber }),
        },
      );
      const added = `Added ${user.firstName} ${user.lastName} as ${user.role}.`;
      // The user is added whether or not the mail goes: a mail server that refuses it (SMTP
      // down) leaves the Admin the link to hand over, and the operator an error in the log.
      let message = `${added} Their one-time link to set a password (also mailed to them): ${link}`;
      try {
        await deps.mailer.send({
          to: user.email,
          subject: `You have access to ${view.organisation.name} in the eSIM portal`,
          text: `Hello ${user.firstName},\n\n${view.user.firstName} ${view.user.lastName} gave you access to ${view.organisation.name} in the eSIM portal as ${user.role}.\nOpen this link within ${deps.config.portal.linkHours} hours to set your password; it works once:\n\n${link}\n`,
        });
      } catch (error) {
        request.log.error(
          { err: error, userId: user.id },
          `the new user's set-password link could not be mailed: ${error instanceof Error ? error.message : String(error)}`,
        );
        message = `${added} Their one-time link to set a password could not be mailed (the mail server did not take it); hand it to them yourself: ${link}`;
      }
      return redirectWithFlash(request, reply, '/portal/users', message);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status !== 400) throw error;
      const addError = { field: fieldOf(error.message), message: error.message };
      return sendUsersPage(deps, view, reply, { form, addError }, 400);
    }
  });

  app.post('/portal/users/:id/role', async (request, reply) => {
    const view = requirePermission(request, 'users.write');
    const userId = userIdParam(request);
    try {
      const user = await changeUserRole(
        deps,
        auditActor(request),
        view.organisation.id,
        userId,
        formValue(request.body, 'role'),
      );
      return redirectWithFlash(
        request,
        reply,
        '/portal/users',
        `${user.email} is now ${user.role}.`,
      );
    } catch (error) {
      return onRowError(deps, view, reply, userId, error);
    }
  });

  app.post('/portal/users/:id/remove', async (request, reply) => {
    const view = requirePermission(request, 'users.write');
    const userId = userIdParam(request);
    try {
      const user = await removeUser(deps, auditActor(request), view.organisation.id, userId);
      return redirectWithFlash(request, reply, '/portal/users', `Removed ${user.email}.`);
    } catch (error) {
      return onRowError(deps, view, reply, userId, error);
    }
  });
}
