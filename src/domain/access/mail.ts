// Mail the portal sends (set-password and forgot-password links). The adapter is SMTP in
// production (src/mail/smtp-mailer.ts) or the outbox table that `esim mail list` reads.

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  readonly name: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
  close?(): Promise<void>;
}
