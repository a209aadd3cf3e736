import nodemailer from 'nodemailer';
import type { Mailer } from '../domain/access/mail.js';

/** Sends mail through an SMTP server (SMTP_URL, e.g. smtps://user:password@smtp.example.com). */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    name: 'smtp',
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    async close() {
      transport.close();
    },
  };
}
