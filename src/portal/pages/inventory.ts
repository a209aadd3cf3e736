import type { FastifyInstance } from 'fastify';
import { iso } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import type { InventoryEntry } from '../../domain/inventory/inventory-view.js';
import { readInventory } from '../../domain/inventory/inventory-view.js';
import { requirePermission } from '../context.js';
import { formatBytes, formatDateTime } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';

// Inventory: the bundles bought and not yet applied to an eSIM, with each purchase batch's units
// left and when they lapse (units are drawn oldest batch first).

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function describe(entry: InventoryEntry): string {
  const b = entry.bundle;
  if (b === undefined) return 'No longer in the catalogue';
  const data = b.unlimited ? 'Unlimited' : formatBytes(b.dataAmount);
  return `${b.description} (${data}, ${b.duration} days)`;
}

function batchRows(entry: InventoryEntry, timeZone: string): SafeHtml[] {
  return entry.batches.map(
    (batch, i) =>
      html`<tr>
        ${i === 0 ? html`<th scope="row" rowspan="${entry.batches.length}">${entry.name}<br /><small>${describe(entry)}</small></th>` : html``}
        <td class="num">${batch.id}</td>
        <td class="num">${batch.remaining} of ${batch.total}</td>
        <td>${formatDateTime(batch.expiry, timeZone)}</td>
      </tr>`,
  );
}

export function inventoryBody(
  entries: readonly InventoryEntry[],
  timeZone: string,
  canBuy: boolean,
): SafeHtml {
  const buy = canBuy
    ? html`<p><a class="button" href="/portal/orders/new">Buy bundles for inventory</a></p>`
    : html``;
  if (entries.length === 0) {
    return html`<p>
        The inventory is empty: bundles bought with the destination "Inventory" wait here until they
        are applied to an eSIM.
      </p>
      ${buy}`;
  }
  const units = entries.reduce((sum, e) => sum + e.remaining, 0);
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="Inventory">
      <table>
        <caption>
          ${plural(units, 'unit')} of ${plural(entries.length, 'bundle')}
        </caption>
        <thead>
          <tr>
            <th scope="col">Bundle</th>
            <th scope="col" class="num">Batch</th>
            <th scope="col" class="num">Units left</th>
            <th scope="col">Lapses</th>
          </tr>
        </thead>
        <tbody>
          ${entries.flatMap((e) => batchRows(e, timeZone))}
        </tbody>
      </table>
    </div>
    ${buy}`;
}

export function registerInventoryPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/inventory', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const entries = await readInventory(deps.store.db, view.organisation.id, iso(deps.clock.now()));
    const body = inventoryBody(entries, view.user.timeZone, can(view.user.role, 'orders.write'));
    return sendPage(reply, view, { title: 'Inventory', current: 'inventory', body });
  });
}
