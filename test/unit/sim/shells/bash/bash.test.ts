// The simulated bash against real bash: the same script, the same output, status and errors.

import { beforeAll, describe, expect, it } from 'vitest';
import { bashQuote } from '../../../../../src/dataplane/quote.js';
import { linuxFactsScript } from '../../../../../src/roles/linux/fact-records.js';
import { dirFact, fileFact } from '../../../../../src/roles/linux/facts.js';
import { LinuxHost } from '../../../../../src/sim/linux/linux-host.js';
import { LinuxShell } from '../../../../../src/sim/linux/linux-shell.js';
import { realBash } from '../../../../support/real-bash.js';

let shell: LinuxShell;
beforeAll(async () => {
  shell = await LinuxShell.create();
});

function simBash(script: string, stdin = '') {
  const host = LinuxHost.fresh('sim');
  const r = shell.run(host, `cd /tmp\n${script}`, stdin);
  return { stdout: r.stdout, stderr: r.stderr.replace(/line (\d+):/g, (_, n) => `line ${Number(n) - 1}:`), exitCode: r.exitCode };
}

// Each script runs in an empty working directory, touching only relative paths.
const SCRIPTS: [string, string][] = [
  ['echo and printf', `echo a b; echo -n c; echo; printf '%s=%d\\n' x 3 y 4; printf '%-5s|\\n' ab; printf 'tab\\there\\n'`],
  [
    'quoting and expansion',
    `X='a  b'; echo $X; echo "$X"; echo '$X'; echo "\${Y:-dflt}" "\${#X}"; Z=\${Z:=set}; echo $Z; echo "q\\"uote" \\$HOME`,
  ],
  [
    'test operators',
    `[ -z "" ] && echo z; [ -n x ] && echo n; [ 3 -lt 10 ] && echo lt; [ a = a ] && echo eq; [ a != b ] && echo ne; [ -f nofile ] || echo nofile; [ ! -d . ] || echo dir`,
  ],
  [
    'if, elif, else and for',
    `for i in 1 2 3; do if [ $i -eq 1 ]; then echo one; elif [ $i -eq 2 ]; then echo two; else echo other; fi; done`,
  ],
  ['&& and || and exit status', `false && echo no; true || echo no; false || echo yes; true && echo yes; (exit 3); echo $?`],
  [
    'files, heredocs and redirections',
    `mkdir -p d/e && cat > d/e/f <<'EOF'\nline $1\nEOF\ncat d/e/f; echo more >> d/e/f; wc -l d/e/f; cat d/e/f 2>/dev/null | grep -c line; ls d/e`,
  ],
  ['stderr and 2>&1', `cat missing 2>&1; cat missing 2>/dev/null || echo failed; echo to-err >&2`],
  ['set -e stops at the first failure', `set -e; echo before; false; echo after`],
  ['set -e spares conditions', `set -e; if false; then echo x; fi; false || echo rescued; ! false; echo end`],
  ['set -u on an unset variable', `set -u; echo start; echo $NOT_SET; echo never`],
  ['pipefail', `set -o pipefail; false | true; echo $?; set +o pipefail; false | true; echo $?`],
  ['command substitution', `a=$(echo inner; echo two); echo "[$a]"; echo "$(printf '%s' x)y"`],
  ['base64 and sha256sum', `printf 'secret\\n' > s; base64 -w0 s; echo; sha256sum s; base64 -w0 s | base64 -d`],
  ['grep', `printf 'a=1\\nb=2\\nab=3\\n' > f; grep -c a f; grep -x 'b=2' f; grep -q zz f || echo none; grep -v a f`],
  ['an unknown command: 127', `nosuchcommand --flag; echo $?`],
  ['exit with a status', `echo x; exit 7; echo never`],
  ['functions and arguments', `greet() { echo "hi $1 ($#)"; }; greet there; greet a b`],
  [
    'assignment keeps the status of its substitution',
    `out=$(false); echo "status $?"; out=$(echo hi; exit 3); echo "$out $?"; x=1; echo $?`,
  ],
  ['for without in walks the arguments', `f() { for a; do echo "<$a>"; done; }; f x 'y z'`],
  ['shift and "$@"', `f() { echo "$#: $1"; shift; for a in "$@"; do echo "[$a]"; done; }; f one 'two words' three`],
  [
    'the facts wire, as roles send it (src/roles/linux/fact-records.ts)',
    `printf 'a\\tb\\n\\n' > f; printf 'x\\0y' > z; printf 'h\u00e9\\n' > u\n${linuxFactsScript(
      [
        fileFact('file', 'f', bashQuote),
        fileFact('utf8', 'u', bashQuote),
        fileFact('none', 'nofile', bashQuote),
        fileFact('nul', 'z', bashQuote),
        dirFact('dir', '.', bashQuote),
        dirFact('nodir', 'nodir', bashQuote),
        { id: 'cmd', sh: "printf 'x\\n\\n'; exit 3" },
        { id: 'stdin', shBuiltin: 'gc_v=$GC_STDIN' },
      ],
      true,
    )}`,
  ],
  [
    'read -d with IFS= keeps every byte; NUL ends it (bash manual, Bash Builtins: read)',
    `printf ' a b\\n\\n c\\t\\n\\n' > f; IFS= read -r -d '' v < f; echo "$? [\${#v}]"; printf '%s|' "$v"; echo\nread -r -d '' w < f; printf '[%s]\\n' "$w"; printf 'x\\0y' > z; IFS= read -r -d '' n < z; echo "$? [$n]"\nread -r a b < /dev/null; echo "$? [$a$b]"; IFS= read -r one two <<< ' p q '; echo "[$one][$two]"`,
  ],
  [
    'a length of a variable counts bytes in the C locale, characters in a UTF-8 one (bash manual, Shell Parameter Expansion)',
    `v='h\u00e9llo'; echo \${#v}; LC_ALL=C.UTF-8; echo \${#v}; LC_ALL=C; echo \${#v}; f() { echo "\${#1}"; }; f abc`,
  ],
  [
    'assignments before a command last only for it (bash manual, Simple Command Expansion)',
    `X=3 :; echo "[$X]"; f() { echo "in:$V"; }; V=2 f; echo "after:\${V-unset}"; V=9 true; echo "\${V-unset}"; W=1; echo "$W"`,
  ],
  [
    'while, until, break and continue (bash manual, Looping Constructs)',
    `i=0; while [ $i -lt 5 ]; do i=$((i+1)); [ $i -eq 2 ] && continue; [ $i -eq 4 ] && break; echo "w$i"; done\nuntil [ $i -le 0 ]; do i=$((i-1)); done; echo "end $i"\nfor a in 1 2; do for b in x y; do [ $b = y ] && continue 2; echo $a$b; done; done\nwhile true; do while true; do break 2; done; done; echo out; break; echo "after $?"`,
  ],
  [
    'case with |, globs, quoted patterns, ;& and ;;& (bash manual, Conditional Constructs)',
    `for w in apple b1 c.conf 'x*' zz q; do\n  case $w in\n    a*|b?) echo "ab:$w" ;;\n    *.conf) echo conf ;&\n    'x*') echo "star-or-fall:$w" ;;&\n    z[a-z]) echo "z:$w" ;;\n    [!a-p]) echo "not a-p:$w" ;;\n    *) echo "other:$w" ;;\n  esac\ndone; case nothing in x) echo no ;; esac; echo "status $?"`,
  ],
  [
    '$(( )) and (( )) (bash manual, Shell Arithmetic)',
    `x=7; echo $((x * 2 + 1)) $(( -x + 1 )) $((x / 2)) $((x % 3)) $((2 ** 10)) $((16#ff)) $((010)) $((x > 5 && x < 10)) $((x == 7 ? 1 : 2)) $((-7 / 2))\n((x += 3)); echo $x $((x++)) $x $((++x)); ((0)); echo $?; ((5)); echo $?; echo "[$((x - 1))]"; n=$((1 << 4 | 1)); echo $n $(( $n + $# ))`,
  ],
  ['an arithmetic error ends bash -c with status 1', `echo before; echo $((1/0)); echo after`],
  [
    'functions, return and local',
    `f() { local v=inner; echo "in $v"; return 3; echo never; }; v=outer; f; echo "rc=$? v=$v"\ng() { local u; u=1; echo "g:$u"; }; g; echo "u=\${u-unset}"; h() { true; return; }; h; echo "h=$?"; return 5; echo "after $?"`,
  ],
  [
    'read in a while loop, from a file, a pipe and standard input',
    `printf 'a b c\\nd e\\n' > f; while read -r x rest; do echo "[$x|$rest]"; done < f\nprintf 'l1\\nl2' | while read line; do echo "got $line"; done; echo "last:$line"\nwhile read -r l; do echo "<$l>"; done`,
  ],
  [
    'awk: fields, -F, patterns, BEGIN/END, printf, if, functions',
    `printf 'vhost0 UP 10.0.0.5/24\\neth0 DOWN\\nlo UNKNOWN 127.0.0.1/8\\n' > ip.txt\nawk '{ print $1 }' ip.txt; awk '$2 == "UP" { print $3 }' ip.txt; awk '/^e/' ip.txt; awk 'NR == 2 { print NF, $NF }' ip.txt\nawk -F/ '{ print $2 }' ip.txt; echo 'a:b:c' | awk -F: -v sep=- '{ print $1 sep $3, length($0) }'\nawk 'BEGIN { n = 0 } $2 != "DOWN" { n++ } END { print "up or unknown:", n }' ip.txt\nawk '{ printf "%-8s|%5.1f|%s\\n", $1, NR * 1.5, toupper(substr($2, 1, 2)) }' ip.txt\nawk '{ if ($2 ~ /UP|DOWN/) print $1 " known"; else print $1 " other" }' ip.txt; awk 'NR > 1 { next } { print "first:" $0 }' ip.txt; awk '{ print $(NF-1) }' ip.txt`,
  ],
  [
    'sed: s with groups, & and flags, -n with p, d, addresses, -E, -i',
    `printf 'name=a\\nkey = b\\n# comment\\nname=c\\n' > conf\nsed 's/=/: /' conf; sed -n 's/^name=\\(.*\\)/[\\1]/p' conf; sed '/^#/d' conf; sed -E 's/(\\w+) = (\\w+)/\\2 is \\1/' conf\nsed -e '2d' -e '$s/c/C/' conf; sed 's/a/<&>/g; s|name|N|' conf; sed -n '3p' conf; echo aaa | sed 's/a/b/2'; sed -i 's/^name=/n=/' conf; cat conf`,
  ],
  [
    '[[ ]] patterns and =~',
    `x=eth0.conf; [[ $x == *.conf ]] && echo glob; [[ $x == "*.conf" ]] || echo quoted; [[ $x != e?h* ]] || echo neg; [[ $x =~ ^eth[0-9] ]] && echo re; [ a = a ] && echo single`,
  ],
  [
    'parameter expansion: # ## % %% / // :offset:length :+ +',
    `p=/etc/contrail/agent.conf.d; echo \${p#*/} \${p##*/} \${p%/*} \${p%%.*} \${p/contrail/tf} \${p//c/C} \${p:5:8} \${p: -6} \${p:+set} \${unset_v+x}[\${unset_v:+y}]; v=a.b.c; echo "\${v%.*}" "\${v#*.}" "\${v/./-}" "\${v//./}"`,
  ],
  ['install with a mode', `cat > f <<'EOF'\nA=1\nEOF\ninstall -m 0640 f g && stat -c %a g && cat g && cmp -s f g && echo same`],
];

describe('simulated bash matches real bash', () => {
  it.each(SCRIPTS)('%s', async (_name, script) => {
    const stdin = 'from-stdin\n';
    const [real, sim] = [await realBash(script, { stdin }), simBash(script, stdin)];
    expect(sim).toEqual(real);
  });
});

describe('what the simulated bash refuses', () => {
  it('a syntax error: exit 2, nothing run', () => {
    const host = LinuxHost.fresh('sim');
    const r = shell.run(host, 'mkdir -p /etc/x; if [ -f y ]; then echo');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/syntax error/);
    expect(host.fs.isDir('/etc/x')).toBe(false);
  });

  it('globbing and constructs outside the subset fail loudly', () => {
    const r = shell.run(LinuxHost.fresh('sim'), 'echo start; ls /etc/*.conf');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/globbing \(\/etc\/\*\.conf\) is outside the simulated subset/);
    const evaluated = shell.run(LinuxHost.fresh('sim'), 'eval echo x; echo after');
    expect(evaluated).toEqual({
      stdout: '',
      stderr: 'bash: groundcrew sim: the builtin eval is outside the simulated subset (docs/simulator.md)\n',
      exitCode: 2,
    });
    expect(shell.run(LinuxHost.fresh('sim'), '[ -L /etc ] && echo link; echo after')).toMatchObject({ stdout: '', exitCode: 2 });
    expect(shell.run(LinuxHost.fresh('sim'), 'set -o noclobber; echo x')).toMatchObject({ stdout: '', exitCode: 2 });
    expect(shell.run(LinuxHost.fresh('sim'), 'declare -A m; echo x').stderr).toMatch(
      /declare with options .* is outside the simulated subset/,
    );
  });

  it('read with an IFS other than the default or empty, or -d without -r, is refused, not read some other way', () => {
    expect(shell.run(LinuxHost.fresh('sim'), 'IFS=: read -r a b <<< \'x:y\'; echo "$a"')).toEqual({
      stdout: '',
      stderr: 'bash: groundcrew sim: read with IFS=":" is outside the simulated subset (docs/simulator.md)\n',
      exitCode: 2,
    });
    expect(shell.run(LinuxHost.fresh('sim'), "read -d '' v <<< x").stderr).toMatch(/read -d without -r is outside the simulated subset/);
  });

  it('awk and sed programs outside their subsets: status 2 and the construct named', () => {
    const host = LinuxHost.fresh('sim');
    expect(shell.run(host, "echo a b | awk '{ for (i = 1; i <= NF; i++) print $i }'")).toEqual({
      stdout: '',
      stderr: "awk: groundcrew sim: 'for' is outside the simulated subset\n",
      exitCode: 2,
    });
    expect(shell.run(host, 'echo a | awk \'{ print > "/tmp/x" }\'').stderr).toMatch(/output redirection in print is outside/);
    expect(shell.run(host, "echo abc | sed 'y/abc/xyz/'")).toEqual({
      stdout: '',
      stderr: 'sed: groundcrew sim: the command y is outside the simulated subset\n',
      exitCode: 2,
    });
    expect(shell.run(host, "echo abc | sed '1,2d'").stderr).toMatch(/address ranges and negation .* is outside the simulated subset/);
  });

  it('a command the host does not have', () => {
    const r = shell.run(LinuxHost.fresh('sim'), 'kubectl get pods');
    expect(r).toEqual({ stdout: '', stderr: 'bash: line 1: kubectl: command not found\n', exitCode: 127 });
  });
});

describe('the Linux host model behind it', () => {
  it('sysctl -w lasts until reboot; /etc/sysctl.d makes it permanent', () => {
    const host = LinuxHost.fresh('sim');
    expect(shell.run(host, 'sysctl -w net.ipv4.ip_forward=1 >/dev/null && cat /proc/sys/net/ipv4/ip_forward').stdout).toBe('1\n');
    host.reboot();
    expect(shell.run(host, 'sysctl -n net.ipv4.ip_forward').stdout).toBe('0\n');
    shell.run(host, "mkdir -p /etc/sysctl.d && echo 'net.ipv4.ip_forward = 1' > /etc/sysctl.d/60-contrail.conf");
    host.reboot();
    expect(shell.run(host, 'sysctl -n net.ipv4.ip_forward').stdout).toBe('1\n');
  });

  it('the boot id changes on reboot, and reboot asks the transport for one', () => {
    const host = LinuxHost.fresh('sim');
    const before = shell.run(host, 'cat /proc/sys/kernel/random/boot_id').stdout;
    shell.run(host, 'reboot');
    expect(host.rebootRequested).toBe(true);
    host.reboot();
    expect(shell.run(host, 'cat /proc/sys/kernel/random/boot_id').stdout).not.toBe(before);
  });

  it('compose up from the file actually written: containers, recreate on change, vhost0 with the agent', () => {
    const host = LinuxHost.fresh('sim');
    const agent = (tag: string) =>
      `  vrouter-agent:\n    image: opencontrailnightly/contrail-vrouter-agent:${tag}\n    network_mode: host\n    privileged: true\n    volumes:\n      - /lib/modules:/lib/modules\n    restart: always\n`;
    const kernelInit = (tag: string) =>
      `  vrouter-kernel-init:\n    image: opencontrailnightly/contrail-vrouter-kernel-init:${tag}\n    privileged: true\n    volumes:\n      - /lib/modules:/lib/modules\n`;
    const write = (services: string) =>
      shell.run(
        host,
        `mkdir -p /etc/contrail/vrouter && cat > /etc/contrail/vrouter/docker-compose.yaml <<'EOF'\nversion: '2'\nservices:\n${services}EOF\ndocker compose -f /etc/contrail/vrouter/docker-compose.yaml up -d`,
      );
    // The agent alone: no vrouter module under /lib/modules, so its entrypoint fails and it keeps restarting.
    expect(write(agent('5.0.1')).exitCode).toBe(0);
    expect(host.state.containers['vrouter-vrouter-agent-1']).toMatchObject({ state: 'restarting', exitCode: 1 });
    expect(shell.run(host, 'ip -br link show vhost0').exitCode).not.toBe(0);
    // With kernel-init (which it depends on) the module is installed first, then the agent makes vhost0.
    expect(
      write(`${agent('5.0.1').replace('    restart', '    depends_on: [vrouter-kernel-init]\n    restart')}${kernelInit('5.0.1')}`)
        .exitCode,
    ).toBe(0);
    expect(host.state.containers['vrouter-vrouter-kernel-init-1']).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(shell.run(host, 'ip -br link show vhost0').stdout).toMatch(/^vhost0 +UP/);
    const both = (tag: string) =>
      `${agent(tag).replace('    restart', '    depends_on: [vrouter-kernel-init]\n    restart')}${kernelInit(tag)}`;
    const journal = host.state.journal.length;
    expect(write(both('5.0.1')).exitCode).toBe(0);
    // Unchanged: the agent stays; the init container, exited, is started again (as compose does).
    expect(host.state.journal.slice(journal)).toEqual([
      'start vrouter-vrouter-kernel-init-1 opencontrailnightly/contrail-vrouter-kernel-init:5.0.1 -> exited (0)',
    ]);
    const before = host.state.journal.length;
    expect(write(both('5.0.2')).exitCode).toBe(0);
    expect(host.state.journal.slice(before)).toEqual([
      'write /etc/contrail/vrouter/docker-compose.yaml',
      'docker-pull opencontrailnightly/contrail-vrouter-kernel-init:5.0.2',
      'docker-pull opencontrailnightly/contrail-vrouter-agent:5.0.2',
      'recreate vrouter-vrouter-kernel-init-1 opencontrailnightly/contrail-vrouter-kernel-init:5.0.2 -> exited (0)',
      'recreate vrouter-vrouter-agent-1 opencontrailnightly/contrail-vrouter-agent:5.0.2',
    ]);
    // compose v2's ps lists running containers (one JSON array, as 2.20 prints it); -a adds the exited init.
    const ps = (flags: string) =>
      (
        JSON.parse(shell.run(host, `docker compose -f /etc/contrail/vrouter/docker-compose.yaml ps ${flags}--format json`).stdout) as {
          Service: string;
        }[]
      ).map((c) => c.Service);
    expect(ps('')).toEqual(['vrouter-agent']);
    expect(ps('-a ').sort()).toEqual(['vrouter-agent', 'vrouter-kernel-init']);
    const missing = write(both('9.9.9'));
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/manifest unknown/);
  });

  it('docker-compose v1 refuses a file without a version, and ps --format; a depends_on naming no service is refused', () => {
    const host = LinuxHost.fresh('c7', {}, { profile: 'centos-7' });
    const run = (file: string, command: string) =>
      shell.run(host, `mkdir -p /etc/x && cat > /etc/x/docker-compose.yaml <<'EOF'\n${file}EOF\n${command}`);
    const noVersion = run(
      'services:\n  a:\n    image: opencontrailnightly/contrail-nodemgr:5.0.1\n',
      'docker-compose -f /etc/x/docker-compose.yaml up -d',
    );
    expect(noVersion).toMatchObject({ exitCode: 1, stderr: expect.stringMatching(/Unsupported config option for services: 'a'/) });
    const dangling = run(
      "version: '2'\nservices:\n  a:\n    image: opencontrailnightly/contrail-nodemgr:5.0.1\n    depends_on: [b]\n",
      'docker-compose -f /etc/x/docker-compose.yaml up -d',
    );
    expect(dangling).toMatchObject({ exitCode: 1, stderr: expect.stringMatching(/depends on service 'b' which is undefined/) });
    expect(shell.run(host, 'docker-compose -f /etc/x/docker-compose.yaml ps --format json').exitCode).toBe(1);
    expect(shell.run(host, 'docker compose version').stderr).toMatch(/'compose' is not a docker command/);
  });
});
