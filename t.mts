import { LinuxShell } from './src/dataplane/sim/bash/linux-shell.ts';
import { LinuxHost } from './src/dataplane/sim/linux/linux-host.ts';

const shell = await LinuxShell.create();
const host = LinuxHost.fresh('lin1');
const run = (s: string, stdin = '') => console.log(JSON.stringify(shell.run(host, s, stdin)));
run(`set -eu
f=/etc/contrail/x.env
if [ -f "$f" ]; then printf "%s\\t%s\\n" "file:$f" "$(cat "$f" | base64 -w0)"; else echo missing; fi
mkdir -p /etc/contrail/vrouter && cat > /etc/contrail/x.env <<'EOF'
A=1
EOF
cat /etc/contrail/x.env; sysctl -n net.ipv4.ip_forward 2>/dev/null || echo none
for i in a b; do echo "$i"; done
X=\${Y:-def}; echo "\${X}" $HOME
[ -d /etc/contrail ] && echo dir-yes
if [ -f "$f" ]; then printf "%s\\t%s\\n" "file:$f" "$(cat "$f" | base64 -w0)"; else echo missing; fi
cat /proc/sys/kernel/random/boot_id; ip -j link show vhost0 || echo no-vhost
nosuch
echo after`);
run('echo $UNSET_VAR; set -u; echo $UNSET_VAR; echo never');
run('ls *.txt');
run('if [ -f x ; then echo');
run('install -m 0600 /dev/stdin /etc/contrail/secret && stat -c %a /etc/contrail/secret && cat /etc/contrail/secret', 'pass\n');
run('sysctl -w net.ipv4.ip_forward=1 && cat /proc/sys/net/ipv4/ip_forward; docker version --format "{{.Server.Version}}"');
