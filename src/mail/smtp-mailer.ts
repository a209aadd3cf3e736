import type { Transporter } from 'nodemailer';
import type { Mailer } from '../domain/access/mail.js';

/**
 * SMTP_URL with timeouts its query does not set: `timeoutMs` to connect and for the greeting,
 * twice that on a silent socket. The SMTP client's own defaults (2 minutes to connect, 10 minutes
 * on a socket) would hold the request that sends the mail (adding a user, "Forgot your
 * password?") that long when the relay drops packets.
 */
function withTimeouts(smtpUrl: string, timeoutMs: number): string {
  const url = new URL(smtpUrl);
  const timeouts = {
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: 2 * timeoutMs,
  };
  for (const [name, ms] of Object.entries(timeouts)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(ms));
  }
  return url.toString();
}

/**
 * Sends mail through an SMTP server (SMTP_URL, e.g. smtps://user:password@smtp.example.com).
 * The SMTP client is loaded with the first mail: a start, and a service that mails nothing,
 * do not load it.
 */
export function createSmtpMailer(smtpUrl: string, from: string, timeoutMs: number): Mailer {
  let transport: Promise<Transporter> | undefined;
  const opened = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then((nodemailer) =>
      nodemailer.default.createTransport(withTimeouts(smtpUrl, timeoutMs)),
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
