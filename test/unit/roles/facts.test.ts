// The facts protocol is strict: a fact that cannot be read fails its phase with what the node said; a fact
// that reads "nothing there" is an absence, and the test decides what that means.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { GroundcrewError } from '../../../src/errors.js';
import { gatherFacts } from '../../../src/roles/facts.js';
import { type Phase, passPhase } from '../../../src/roles/phase.js';
import { compare, NO_CHANGE, type Resource } from '../../../src/roles/resource.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const windows = () => new SimExecutor({ host: WindowsHost.fresh({ hostname: 'win1' }), shells });
const linux = () => new SimExecutor({ host: LinuxHost.fresh('lin1'), shells });

/** A phase of one resource reading `query`; its set would change nothing. */
function phaseReading(query: { ps?: string; sh?: string }): Phase {
  const resource: Resource = {
    name: 'probe',
    facts: [{ id: 'probe', ...query }],
    test: (facts) => compare({ Value: [facts.get('probe'), 'never'] }),
    set: async () => NO_CHANGE,
  };
  return { name: 'probe-phase', resources: [resource] };
}

async function failure(promise: Promise<unknown>): Promise<GroundcrewError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GroundcrewError) return err;
    throw err;
  }
  throw new Error('expected the phase to fail');
}

describe('Windows facts', () => {
  it('a fact script with an unmodelled cmdlet fails its phase loudly, the cmdlet named: no catch turns it into a fact', async () => {
    // The simulator cannot know what a cmdlet it never heard of would do on Windows, so it refuses the whole
    // script (docs/simulator.md, "A refusal"): the read fails, not just the fact.
    const err = await failure(passPhase(windows(), phaseReading({ ps: 'Get-NoSuchThing -Name x' })));
    expect(err.code).toBe('GC_FACTS_FAILED');
    expect(err.message).toMatch(
      /^reading the facts of probe-phase failed \(exit 1\): Get-NoSuchThing : The term 'Get-NoSuchThing' is not recognized .*\(groundcrew sim: 'Get-NoSuchThing' is not modelled/,
    );
  });

  it('a modelled cmdlet this host lacks (Hyper-V tools not installed) fails its fact, with the error Windows gives', async () => {
    const err = await failure(passPhase(windows(), phaseReading({ ps: "Get-VMSwitch -Name 'x'" })));
    expect(err.code).toBe('GC_FACTS_FAILED');
    expect(err.message).toMatch(/^1 fact\(s\) of probe-phase could not be read: probe: The term 'Get-VMSwitch' is not recognized/);
  });

  it('a non-terminating error the query did not ask to silence fails the fact (no service named so)', async () => {
    const err = await failure(gatherFacts(windows(), [{ id: 'svc', ps: "(Get-Service -Name 'nope').Status" }], { label: 'x' }));
    expect(err.message).toMatch(/svc: Cannot find any service with service name 'nope'/);
  });

  it('an absence the query says itself is a fact: null, and no failure', async () => {
    const facts = await gatherFacts(
      windows(),
      [{ id: 'svc', ps: "$s = Get-Service -Name 'nope' -ErrorAction SilentlyContinue; if ($s) { $s.Status.ToString() } else { $null }" }],
      { label: 'x' },
    );
    expect(facts.get('svc')).toBeNull();
  });

  it('one failed fact fails the read even when the others answered', async () => {
    const err = await failure(
      gatherFacts(
        windows(),
        [
          { id: 'good', ps: "'yes'" },
          { id: 'bad', ps: 'Get-WindowsFeature -Bogus 1' },
        ],
        { label: 'mixed' },
      ),
    );
    expect(err.message).toMatch(
      /1 fact\(s\) of mixed could not be read: bad: A parameter cannot be found that matches parameter name 'Bogus'/,
    );
  });
});

describe('Linux facts', () => {
  it('a fact whose tool is missing (127) fails its phase; a non-zero status of a present tool is a fact', async () => {
    const err = await failure(passPhase(linux(), phaseReading({ sh: 'no-such-tool --version' })));
    expect(err.code).toBe('GC_FACTS_FAILED');
    expect(err.message).toMatch(/probe: exit 127: command not found/);
    const facts = await gatherFacts(linux(), [{ id: 'missing', sh: 'test -e /no/such/file' }], { label: 'x' });
    expect(facts.get('missing')).toMatchObject({ status: 1 });
  });
});
