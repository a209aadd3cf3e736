import type { AppDeps } from '../../deps.js';
import { defaultExpiry, describeCard, parseExpiry } from '../../domain/money/card-input.js';
import { saveCard } from '../../domain/money/save-card.js';
import { DEFAULT_TEST_CARD, TEST_CARDS } from '../../payments/test-cards.js';
import type { Command } from '../command.js';
import { onePositional, parse, requireOption } from '../command.js';
import { withServices } from '../services.js';
import { operator } from './audit.js';
import { afterCreateSteps } from './org.js';

export const orgCard: Command = {
  usage: 'esim org card <id> --number <card number> [--exp MM/YY] [--json]',
  summary:
    'Save a card for balance top-up (it becomes the one charged); simulator test numbers: ' +
    TEST_CARDS.map((c) => `${c.number} (${c.behaviour.replace('_', ' ')})`).join(', '),
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      number: { type: 'string' },
      exp: { type: 'string' },
      json: { type: 'boolean' },
    });
    const orgId = onePositional(positionals, 'organisation id');
    const number = requireOption(values.number, 'number');
    return withServices(ctx.config(), async (deps) => {
      const expiry = values.exp === undefined ? defaultExpiry(deps.clock) : parseExpiry(values.exp);
      const card = await saveCard({ ...deps, actor: operator(ctx) }, orgId, {
        number,
        ...expiry,
      });
      ctx.io.out(
        values.json === true
          ? JSON.stringify({
              id: card.id,
              brand: card.brand,
              last4: card.last4,
              expMonth: card.expMonth,
              expYear: card.expYear,
            })
          : `saved card: ${describeCard(card)} (used for top-up)`,
      );
      return 0;
    });
  },
};

/** In simulator mode a new organisation gets a success test card, so top-up works at once. */
export async function saveSimulatorCard(
  deps: AppDeps,
  orgId: string,
  flags: { noCard: boolean },
): Promise<string | undefined> {
  if (deps.config.mode !== 'simulator' || flags.noCard || deps.payments.name !== 'test') {
    return undefined;
  }
  const card = await saveCard(deps, orgId, {
    number: DEFAULT_TEST_CARD,
    ...defaultExpiry(deps.clock),
  });
  return `card: ${describeCard(card)} (test card, saved for top-up)`;
}

afterCreateSteps.push(saveSimulatorCard);
