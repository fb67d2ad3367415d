import type { Caller } from '../../lib/core/caller.js';

export interface TestCaller extends Caller {
  /** How often the rules asked whether the workspace makes this person an admin. */
  asked(): number;
}

/**
 * A caller as any surface makes one, for the core's tests. Whether the workspace makes them an
 * admin is `admin`; when it is undefined, being asked fails the test, for rules that must not ask.
 */
export function testCaller(
  where: { team: string; channel: string },
  user: string,
  admin?: boolean,
): TestCaller {
  let asked = 0;
  return {
    team: where.team,
    user,
    channel: where.channel,
    surface: 'slack',
    isWorkspaceAdmin: async () => {
      asked += 1;
      if (admin === undefined)
        throw new Error(`the workspace was asked whether ${user} is an admin, and it must not be`);
      return admin;
    },
    asked: () => asked,
  };
}
