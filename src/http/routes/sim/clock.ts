import { Type } from '@sinclair/typebox';
import { iso } from '../../../clock.js';
import type { AppDeps } from '../../../deps.js';
import { MAX_ADVANCE_SECONDS, advanceSimulatedTime } from '../../../domain/simulator/console.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks, simulatorOf } from './sim-schema.js';

const ClockBody = Type.Object({
  now: Type.String({ description: 'The simulated time, RFC 3339 UTC.' }),
  offsetSeconds: Type.Number({ description: 'How far the simulated time is ahead of real time.' }),
});

export function registerSimClock(app: Api, deps: AppDeps): void {
  app.get(
    '/clock',
    {
      schema: {
        ...simMarks,
        operationId: 'simGetClock',
        summary: 'Read the simulated clock',
        response: { 200: ClockBody, ...simErrors },
      },
    },
    async () => {
      const { clock } = simulatorOf(deps);
      return { now: iso(clock.now()), offsetSeconds: clock.offset / 1000 };
    },
  );

  app.post(
    '/clock/advance',
    {
      schema: {
        ...simMarks,
        operationId: 'simAdvanceClock',
        summary: 'Advance the simulated clock',
        description:
          'Moves the clock forward (it never goes back) and runs the lifecycle scheduler once before ' +
          'answering, so processing, expiry and validity lapses due by the new time are applied on return. ' +
          'The offset is stored and survives a restart.',
        body: Type.Object(
          {
            seconds: Type.Number({
              exclusiveMinimum: 0,
              maximum: MAX_ADVANCE_SECONDS,
              description: 'Seconds to advance, e.g. 2592000 for 30 days.',
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Composite([
            ClockBody,
            Type.Object({
              provisioned: Type.Integer({ description: 'Assignments that became Queued.' }),
              expired: Type.Integer({ description: 'Assignments that became Expired.' }),
            }),
          ]),
          ...simErrors,
        },
      },
    },
    async (request) => advanceSimulatedTime(deps, request.body.seconds),
  );
}
