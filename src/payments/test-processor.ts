import type { Clock, WallClock } from '../clock.js';
import { iso, sleepOn, systemWallClock } from '../clock.js';
import { badRequest } from '../domain/errors/error-codes.js';
import { luhnValid } from '../domain/esims/esim-issuer.js';
import type { RandomSource } from '../random.js';
import type { Db } from '../store/database.js';
import {
  finishProcessorCharge,
  findProcessorCharge,
  insertProcessorCharge,
} from '../store/repositories/payment-repository.js';
import type {
  CardInput,
  CardToken,
  ChargeLookup,
  ChargeOutcome,
  DeclineCode,
  PaymentGateway,
} from '../domain/money/payment-gateway.js';
import { GatewayUnavailableError } from '../domain/money/payment-gateway.js';
import type { TestBehaviour } from './test-cards.js';
import { TEST_CARDS, findTestCard } from './test-cards.js';

// The built-in test processor: behaves like a remote card processor for the documented test
// numbers. The outcome travels in the token (the processor's own business), so saved cards keep
// working across restarts. Each charge is recorded when it arrives and again when it is decided,
// in the shared database, so lookup() answers from any server process. `latencyMs` delays each
// answer; above PAYMENT_TIMEOUT_MS it turns charges into ones of unknown outcome.
//
// Like a real processor, it finishes a charge whether or not the caller is still waiting: a
// charge is decided `latencyMs` after it arrived. The process that received it writes the
// decision when its wait ends; if that process died meanwhile (SIGKILL mid-charge), the first
// lookup after that moment decides it from the row, so a restarted service learns the outcome.

export interface TestProcessorOptions {
  readonly db: Db;
  /** The service clock (the simulator's): card expiry is judged by it. */
  readonly clock: Clock;
  /**
   * The processor's own clock, for when charges arrive and are decided: real time by default,
   * because the processor is another system and its latency is real; a jump of the simulator's
   * clock must not decide a charge early.
   */
  readonly processorClock?: WallClock;
  readonly random: RandomSource;
  readonly latencyMs: number;
}

const TOKEN = /^tok_test_(success|decline|insufficient_funds|processor_down)_[0-9a-f]{32}$/;

const DECLINES: Partial<Record<TestBehaviour, { code: DeclineCode; reason: string }>> = {
  decline: { code: 'card_declined', reason: 'the card was declined' },
  insufficient_funds: { code: 'insufficient_funds', reason: 'the card has insufficient funds' },
};

function behaviourOf(token: string): TestBehaviour | undefined {
  const match = TOKEN.exec(token);
  return match?.[1] as TestBehaviour | undefined;
}

/** What the processor decides for a charge on a token: the decline, or undefined for success. */
function declineFor(token: string): { code: DeclineCode; reason: string } | undefined {
  const behaviour = behaviourOf(token);
  return behaviour === undefined ? DECLINES.decline : DECLINES[behaviour];
}

function outcomeOf(row: { status: string; declineCode: string | null; processorRef: string }) {
  if (row.status === 'succeeded') {
    return { status: 'succeeded', processorRef: row.processorRef } as const;
  }
  const decline = Object.values(DECLINES).find((d) => d.code === row.declineCode);
  return {
    status: 'declined',
    code: decline?.code ?? 'card_declined',
    reason: decline?.reason ?? 'the card was declined',
  } as const;
}

/** A token for a documented test card, refusing anything else as a processor would. */
function tokeniseTestCard(card: CardInput, now: Date, suffix: () => string): CardToken {
  const number = card.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    throw badRequest('card number is not a valid card number', 'invalid_card');
  }
  const test = findTestCard(number);
  if (test === undefined) {
    throw badRequest(
      `card number is not a test card of the built-in test processor; use one of ${TEST_CARDS.map((c) => c.number).join(', ')}`,
      'invalid_card',
    );
  }
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12) {
    throw badRequest('card expiry month must be 1 to 12', 'invalid_card');
  }
  const expired =
    card.expYear < now.getUTCFullYear() ||
    (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1);
  if (expired) throw badRequest('card expiry is in the past', 'expired_card');
  return {
    token: `tok_test_${test.behaviour}_${suffix()}`,
    brand: test.brand,
    last4: number.slice(-4),
    expMonth: card.expMonth,
    expYear: card.expYear,
  };
}

export function createTestProcessor(options: TestProcessorOptions): PaymentGateway {
  const { db, clock, random } = options;
  const processorClock = options.processorClock ?? systemWallClock;
  const hex = (): string => random.uuid().replace(/-/g, '');
  return {
    name: 'test',

    async tokenise(card) {
      return tokeniseTestCard(card, clock.now(), hex);
    },

    async charge(request): Promise<ChargeOutcome> {
      const behaviour = behaviourOf(request.token);
      if (behaviour === 'processor_down') throw new GatewayUnavailableError();
      const processorRef = `ch_test_${hex()}`;
      // Received: from here on the charge exists at the processor, whether or not we answer.
      await insertProcessorCharge(db, {
        reference: request.reference,
        token: request.token,
        amount: request.amount,
        currency: request.currency,
        status: 'processing',
        declineCode: null,
        processorRef,
        at: iso(processorClock.now()),
      });
      if (options.latencyMs > 0) await sleepOn(processorClock, options.latencyMs);
      const decline = declineFor(request.token);
      await finishProcessorCharge(
        db,
        request.reference,
        decline === undefined ? 'succeeded' : 'declined',
        decline?.code ?? null,
        iso(processorClock.now()),
      );
      return decline === undefined
        ? { status: 'succeeded', processorRef }
        : { status: 'declined', ...decline };
    },

    async lookup(reference): Promise<ChargeLookup> {
      const row = await findProcessorCharge(db, reference);
      if (row === undefined) return { status: 'not_found' };
      if (row.status !== 'processing') return outcomeOf(row);
      const now = processorClock.now();
      if (now.getTime() < Date.parse(row.receivedAt) + options.latencyMs) {
        return { status: 'processing' };
      }
      // Due, but its receiver never wrote the decision (it died): decide it now.
      const decline = declineFor(row.token);
      await finishProcessorCharge(
        db,
        reference,
        decline === undefined ? 'succeeded' : 'declined',
        decline?.code ?? null,
        iso(now),
      );
      const decided = await findProcessorCharge(db, reference);
      return decided === undefined || decided.status === 'processing'
        ? { status: 'processing' }
        : outcomeOf(decided);
    },
  };
}
