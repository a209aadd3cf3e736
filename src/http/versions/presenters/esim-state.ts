import { Type } from '@sinclair/typebox';
import type { Static, TObject } from '@sinclair/typebox';
import type { RevokeOutcome } from '../../../domain/esims/revoke-bundle.js';
import { CompatibleAnswer } from '../../routes/esims/compatible.js';
import { RevokeResult } from '../../routes/esims/revoke.js';
import { RevokeByNameAnswer } from '../../routes/esims/revoke-by-name.js';
import { toMajor } from '../money.js';
import type { Presenter } from '../presenter.js';
import { presenter } from '../presenter.js';
import type { Compatibility, InCurrency } from '../results.js';
import { money, reshaped } from '../shapes/schema-tools.js';

// Revokes and the compatibility check. v2.4: a revoke by bundle name says whether the price went
// back to the money, and how much (major units); v2.5: the revoke by assignment id too.
// `/compatible/{bundle}` answers {message} on v2.2 and v2.3, {compatible} from v2.4.

type Revoke = Presenter<InCurrency<RevokeOutcome>>;

const revokeV21 = ({ result: r }: InCurrency<RevokeOutcome>): Static<typeof RevokeResult> => ({
  status: r.status,
  assignmentId: r.assignmentId,
  bundle: r.bundle,
  previousState: r.previousState,
  bundleState: r.bundleState,
  refundToInventory: r.refundToInventory,
});

export const REVOKE_ASSIGNMENT_V21: Revoke = presenter(RevokeResult, revokeV21);
export const REVOKE_BY_NAME_V21: Revoke = presenter(RevokeByNameAnswer, revokeV21);

function withRefund<S extends TObject<typeof RevokeResult.properties>>(shared: S): Revoke {
  const schema = reshaped(shared, {
    refundToBalance: Type.Boolean({
      description: 'True when the price went (or, validating, would go) back to the money.',
    }),
    refundedAmount: money('What went (or would go) back to the balance and test credit'),
  });
  return presenter(schema, (read: InCurrency<RevokeOutcome>) => ({
    ...revokeV21(read),
    refundToBalance: read.result.refundToBalance,
    refundedAmount: toMajor(read.result.refundedAmount, read.currency),
  }));
}

export const REVOKE_BY_NAME_V24 = withRefund(RevokeByNameAnswer);
export const REVOKE_ASSIGNMENT_V25 = withRefund(RevokeResult);

export const COMPATIBLE_V22 = presenter(CompatibleAnswer, (c: Compatibility) => ({
  message: `eSIM ${c.iccid} is ${c.compatible ? '' : 'not '}compatible with bundle ${c.bundle}`,
}));

const CompatibleV24 = Type.Object(
  { compatible: Type.Boolean({ description: 'Whether the bundle can be applied to the eSIM.' }) },
  { description: 'The compatibility result.', example: { compatible: true } },
);

export const COMPATIBLE_V24 = presenter(CompatibleV24, (c: Compatibility) => ({
  compatible: c.compatible,
}));
