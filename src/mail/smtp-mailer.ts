import type { Transporter } from 'nodemailer';
import type { Mailer } from '../domain/access/mail.js';

/**
 * Sends mail through an SMTP server (SMTP_URL, e.g. smtps://user:password@smtp.example.com).
 * The SMTP client is loaded with the first mail: a start, and a service that mails nothing,
 * do not load it.
 */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  let transport: Promise<Transporter> | undefined;
  const opened = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then((nodemailer) =>
      nodemailer.default.createTransport(smtpUrl),
    ));
  return {
    name: 'smtp',
    async send(mail) {
      const smtp = await opened();
      await smtp.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    async close() {
      if (transport !== undefined) (await transport).close();
    },
  };
}
