import { Type } from '@sinclair/typebox';

// POST /esims/{iccid}/sms from v2.4, where the live document answers its StatusMessage schema,
// `{status}`, in place of v2.1's `{message}` (the value is the live reference's, `sent`).

export const SmsV24 = Type.Object(
  { status: Type.String({ description: 'Always `sent`: the network took the message.' }) },
  { title: 'StatusMessage' },
);

export const smsV24Answer = (): { status: string } => ({ status: 'sent' });
