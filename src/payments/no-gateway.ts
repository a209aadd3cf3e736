import type { PaymentGateway } from '../domain/money/payment-gateway.js';
import { GatewayUnavailableError } from '../domain/money/payment-gateway.js';

/** PAYMENT_GATEWAY=none: there is no processor, so every charge is refused as undeliverable. */
export const noGateway: PaymentGateway = {
  name: 'none',
  async tokenise() {
    throw new GatewayUnavailableError('no payment processor is configured (PAYMENT_GATEWAY=none)');
  },
  async charge() {
    throw new GatewayUnavailableError('no payment processor is configured (PAYMENT_GATEWAY=none)');
  },
  async lookup() {
    return { status: 'not_found' };
  },
};
