import { iso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { Mailer } from '../domain/access/mail.js';
import type { Store } from '../store/database.js';
import { insertMail } from '../store/repositories/portal-repository.js';

/** Keeps mail in the mail_outbox table, where `esim mail list` shows it (simulator mode). */
export function createOutboxMailer(store: Store, clock: Clock): Mailer {
  return {
    name: 'outbox',
    async send(mail) {
      await insertMail(store.db, {
        at: iso(clock.now()),
        to: mail.to,
        subject: mail.subject,
        body: mail.text,
      });
    },
  };
}
