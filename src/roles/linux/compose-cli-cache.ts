// Which Compose a node has, remembered on the node until something it depends on changes: a no-op re-verify
// then runs no `docker compose version` (docs/BENCHMARKS.md, the no-op floor). Bash builtins only on a hit.
//
// The answer is kept under `dir` with the key it was found under: the boot (/proc/sys/kernel/random/boot_id),
// the files that decide it (docker and docker-compose as bash finds them on PATH, ~/.docker/config.json, and
// the compose plugin in each directory docker/cli searches: cli-plugins/manager/manager_unix.go), and for each
// file a reference whose mtime `touch -r` copied from it. A hit needs the same boot, the same files, and each
// file's mtime equal to its reference's (`[[ -nt ]]`/`[[ -ot ]]` both false: bash 5 compares nanoseconds).
// A package upgrade replaces the binary with one of another mtime (its build's), so it is seen without a
// reboot. Anything else (a missing, garbled or forged answer, a reference gone, a link where a file should
// be, a directory not ours) is a miss: the CLIs are asked again and the answer rewritten, never believed.

/** Where docker/cli looks for plugins on Linux, after ~/.docker/cli-plugins (its defaultSystemPluginDirs). */
const PLUGIN_DIRS = [
  '/usr/local/lib/docker/cli-plugins',
  '/usr/local/libexec/docker/cli-plugins',
  '/usr/lib/docker/cli-plugins',
  '/usr/libexec/docker/cli-plugins',
];

/** What a cached answer may be: the fact's own `v1 VERSION` or `v2 VERSION`, one line. */
const ANSWER = '^\\n(v[12] [0-9A-Za-z.+_-]{1,64})\\n$';

export interface ComposeCliCache {
  /** A directory only root writes to, emptied at boot on a real host (tmpfs). */
  dir: string;
  /** Where the boot id is read (a test's stand-in; the kernel's elsewhere). */
  bootId: string;
}

export const COMPOSE_CLI_CACHE: ComposeCliCache = { dir: '/run/groundcrew/compose-cli', bootId: '/proc/sys/kernel/random/boot_id' };

/**
 * The body of a fact function (shBuiltin) leaving `v2 VERSION` or `v1 VERSION` in gc_v, status 1 when there is
 * neither. `detect` is the detection itself (it sets gc_v or returns 1); it runs on a miss only.
 */
export function cachedComposeDetection(detect: string, cache: ComposeCliCache, bashQuote: (s: string) => string): string {
  const d = bashQuote(cache.dir);
  const files = [
    '"$gc_docker"',
    '"$gc_v1"',
    '"$HOME/.docker/config.json"',
    '"$HOME/.docker/cli-plugins/docker-compose"',
    ...PLUGIN_DIRS.map((p) => bashQuote(`${p}/docker-compose`)),
  ].join(' ');
  return [
    'local gc_x gc_p gc_r=$PATH: gc_i gc_docker= gc_v1= gc_b= gc_k= gc_hit= gc_ok=',
    `local gc_re=$'${ANSWER}'`,
    // docker and docker-compose as bash would run them: the first executable file on PATH.
    'while [[ -n $gc_r ]]; do',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${gc_r%%:*}, not a template
    '  gc_p=${gc_r%%:*}; gc_r=${gc_r#*:}; [[ -n $gc_p ]] || gc_p=.',
    '  [[ -z $gc_docker && -f $gc_p/docker && -x $gc_p/docker ]] && gc_docker=$gc_p/docker',
    '  [[ -z $gc_v1 && -f $gc_p/docker-compose && -x $gc_p/docker-compose ]] && gc_v1=$gc_p/docker-compose',
    'done',
    // No docker file to key on, or plugins found where this key does not look (DOCKER_CONFIG,
    // cliPluginsExtraDirs): ask every time, as without a cache.
    `if [[ -n $gc_docker && -z $DOCKER_CONFIG && -f ${bashQuote(cache.bootId)} ]]; then`,
    `  read -r gc_b < ${bashQuote(cache.bootId)}`,
    '  gc_x=; [[ -f $HOME/.docker/config.json ]] && IFS= read -r -d \'\' gc_x < "$HOME/.docker/config.json"',
    '  [[ $gc_x == *cliPluginsExtraDirs* ]] && gc_b=',
    'fi',
    'if [[ $gc_b =~ ^[0-9a-f-]{36}$ ]]; then',
    '  gc_k=$gc_b gc_i=0 gc_hit=1',
    `  for gc_p in ${files}; do`,
    '    gc_i=$((gc_i + 1))',
    '    [[ -n $gc_p && -e $gc_p ]] || continue',
    '    gc_k+=$\'\\n\'"$gc_i $gc_p"',
    `    [[ -f ${d}/ref.$gc_i && ! -L ${d}/ref.$gc_i ]] && ! [[ $gc_p -nt ${d}/ref.$gc_i || $gc_p -ot ${d}/ref.$gc_i ]] || gc_hit=`,
    '  done',
    '  gc_x=',
    `  [[ -d ${d} && ! -L ${d} && -O ${d} && -f ${d}/answer && ! -L ${d}/answer ]] && IFS= read -r -d '' gc_x < ${d}/answer`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's substrings, not a template
    '  if [[ -n $gc_hit && ${gc_x:0:${#gc_k}} == "$gc_k" && ${gc_x:${#gc_k}} =~ $gc_re ]]; then gc_v=${BASH_REMATCH[1]}; return 0; fi',
    // A miss: the references first, then the CLIs, so a binary replaced while they answer is a miss next time.
    `  [[ -e ${d} || -L ${d} ]] || mkdir -p -m 0700 ${d}`,
    `  if [[ -d ${d} && ! -L ${d} && -O ${d} && ! -L ${d}/answer ]] && : > ${d}/answer; then`,
    '    gc_ok=1 gc_i=0',
    `    for gc_p in ${files}; do`,
    '      gc_i=$((gc_i + 1))',
    '      [[ -n $gc_p && -e $gc_p ]] || continue',
    `      [[ ! -L ${d}/ref.$gc_i ]] && touch -r "$gc_p" ${d}/ref.$gc_i || gc_ok=`,
    '    done',
    '  fi',
    'fi',
    detect,
    'if [[ -n $gc_ok ]]; then',
    `  [[ $'\\n'"$gc_v"$'\\n' =~ $gc_re ]] && printf '%s\\n%s\\n' "$gc_k" "$gc_v" > ${d}/answer`,
    'fi',
    'return 0',
  ].join('\n');
}
