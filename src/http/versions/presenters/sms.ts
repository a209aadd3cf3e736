import { Type } from '@sinclair/typebox';
import { SmsAnswer } from '../../routes/esims/sms.js';
import type { Presenter } from '../presenter.js';
import { presenter } from '../presenter.js';
import type { SmsSent } from '../results.js';

// POST /esims/{iccid}/sms: v2.1 to v2.3 answer {message}; from v2.4 the live document answers
// its StatusMessage schema, {status} (the value is the live reference's, `sent`).

export const SMS_V21: Presenter<SmsSent> = presenter(SmsAnswer, () => ({
  message: 'Message sent',
}));

const SmsV24 = Type.Object(
  { status: Type.String({ description: 'Always `sent`: the network took the message.' }) },
  { title: 'StatusMessage' },
);

export const SMS_V24: Presenter<SmsSent> = presenter(SmsV24, () => ({ status: 'sent' }));
