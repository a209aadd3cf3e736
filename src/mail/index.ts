import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Mailer } from '../domain/access/mail.js';
import type { Store } from '../store/database.js';
import { createOutboxMailer } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';

export function createMailer(config: Config, store: Store, clock: Clock): Mailer {
  const settings = config.portal;
  if (settings.mailTransport === 'smtp' && settings.smtpUrl !== undefined) {
    return createSmtpMailer(settings.smtpUrl, settings.mailFrom, settings.smtpTimeoutMs);
  }
  return createOutboxMailer(store, clock);
}
