// The card numbers the built-in test processor accepts, and what each does. Any expiry in the
// future and any CVC work. No other number is accepted, so a real card never enters a simulator.

export type TestBehaviour = 'success' | 'decline' | 'insufficient_funds' | 'processor_down';

export interface TestCard {
  readonly number: string;
  readonly brand: string;
  readonly behaviour: TestBehaviour;
  readonly description: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  {
    number: '4242424242424242',
    brand: 'Visa',
    behaviour: 'success',
    description: 'Every charge succeeds.',
  },
  {
    number: '5555555555554444',
    brand: 'Mastercard',
    behaviour: 'success',
    description: 'Every charge succeeds.',
  },
  {
    number: '4000000000000002',
    brand: 'Visa',
    behaviour: 'decline',
    description: 'Every charge is declined (card_declined): 400.',
  },
  {
    number: '4000000000009995',
    brand: 'Visa',
    behaviour: 'insufficient_funds',
    description: 'Every charge is declined for insufficient funds (insufficient_funds): 400.',
  },
  {
    number: '4000000000000119',
    brand: 'Visa',
    behaviour: 'processor_down',
    description: 'The processor cannot be reached; nothing is charged: 503 with Retry-After.',
  },
];

/** The card `esim org create` saves in simulator mode. */
export const DEFAULT_TEST_CARD = '4242424242424242';

export function findTestCard(number: string): TestCard | undefined {
  return TEST_CARDS.find((c) => c.number === number);
}
