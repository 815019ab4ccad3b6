// `groundcrew completion bash|zsh|fish`: a completion script made from the command tree itself, so it never
// lags behind a new command or option. Node names come from the daemon (`groundcrew nodes --names`),
// filter values from the same lists the API takes.

import type { Command } from 'commander';

const STATES = [
  'verified',
  'pending',
  'converging',
  'rebooting',
  'backoff',
  'stalled',
  'unreachable',
  'paused',
  'removing',
  'removed',
  'orphaned',
];
const VALUES: Record<string, string[]> = {
  '--state': STATES,
  '--os': ['linux', 'windows'],
  '--mode': ['apply', 'monitor', 'autocorrect'],
  '--sort': ['name', 'os', 'roles', 'state', 'phase', 'version', 'revision', 'since', 'reason', '-name', '-state', '-since'],
};
const FILES = ['--config', '--token-file', '--state-dir', '--repo', '--gpg-keyring', '--allowed-signers'];
/** Commands whose arguments are node names. */
const NODE_ARGS = ['explain', 'history', 'reconcile'];

interface Spec {
  name: string;
  description: string;
  options: { flag: string; description: string; takesValue: boolean }[];
}

function specs(program: Command): Spec[] {
  return program.commands.map((c) => ({
    name: c.name(),
    description: c.description(),
    options: c.options
      .filter((o) => o.long && !o.hidden)
      .map((o) => ({ flag: o.long as string, description: o.description, takesValue: o.required || o.optional })),
  }));
}

const shellWords = (words: string[]) => words.join(' ');

export function bashCompletion(program: Command): string {
  const all = specs(program);
  const cases = all.map((s) => `    ${s.name}) opts="${shellWords(s.options.map((o) => o.flag))}" ;;`).join('\n');
  const values = Object.entries(VALUES)
    .map(([flag, words]) => `    ${flag}) COMPREPLY=($(compgen -W "${shellWords(words)}" -- "$cur")); return ;;`)
    .join('\n');
  return `# bash completion for groundcrew: source it, or put it in /etc/bash_completion.d/groundcrew
# (made by \`groundcrew completion bash\`)
_groundcrew() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="\${COMP_WORDS[1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${shellWords(all.map((s) => s.name))}" -- "$cur"))
    return
  fi
  case "$prev" in
${values}
    ${FILES.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    local opts=""
    case "$cmd" in
${cases}
    esac
    COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
    return
  fi
  case "$cmd" in
    ${NODE_ARGS.join('|')}) COMPREPLY=($(compgen -W "$("\${COMP_WORDS[0]}" nodes --names 2>/dev/null)" -- "$cur")) ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
    validate|plan|demo) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F _groundcrew groundcrew
`;
}

/** zsh quoting for an _arguments spec: brackets and colons in descriptions would end the field. */
const zq = (text: string) =>
  text
    .replace(/[[\]:'\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export function zshCompletion(program: Command): string {
  const all = specs(program);
  const commands = all.map((s) => `    '${s.name}:${zq(s.description)}'`).join('\n');
  const perCommand = all
    .map((s) => {
      const opts = s.options.map((o) => {
        const values = VALUES[o.flag];
        const action = !o.takesValue ? '' : values ? `:value:(${values.join(' ')})` : FILES.includes(o.flag) ? ':file:_files' : ':value:';
        return `'${o.flag}[${zq(o.description)}]${action}'`;
      });
      const args = NODE_ARGS.includes(s.name)
        ? ["'*:node:_groundcrew_nodes'"]
        : s.name === 'completion'
          ? ["'1:shell:(bash zsh fish)'"]
          : ['validate', 'plan'].includes(s.name)
            ? ["'*:path:_files'"]
            : [];
      return `    ${s.name}) _arguments ${[...opts, ...args].join(' ')} ;;`;
    })
    .join('\n');
  return `#compdef groundcrew
# zsh completion for groundcrew: put it on your $fpath as _groundcrew (made by \`groundcrew completion zsh\`)
_groundcrew_nodes() {
  local -a names
  names=(\${(f)"$(groundcrew nodes --names 2>/dev/null)"})
  _describe 'node' names
}
_groundcrew() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${perCommand}
  esac
}
_groundcrew "$@"
`;
}

/** fish quoting: a single-quoted word, its quotes and backslashes escaped. */
const fq = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/\s+/g, ' ')}'`;

export function fishCompletion(program: Command): string {
  const all = specs(program);
  const lines = [
    '# fish completion for groundcrew: save as ~/.config/fish/completions/groundcrew.fish (made by `groundcrew completion fish`)',
    'complete -c groundcrew -f',
    ...all.map((s) => `complete -c groundcrew -n __fish_use_subcommand -a ${s.name} -d ${fq(s.description)}`),
  ];
  for (const s of all) {
    const when = `-n ${fq(`__fish_seen_subcommand_from ${s.name}`)}`;
    for (const o of s.options) {
      const values = VALUES[o.flag];
      const takes = !o.takesValue ? '' : values ? ` -x -a ${fq(values.join(' '))}` : FILES.includes(o.flag) ? ' -r -F' : ' -x';
      lines.push(`complete -c groundcrew ${when} -l ${o.flag.slice(2)}${takes} -d ${fq(o.description)}`);
    }
    if (NODE_ARGS.includes(s.name)) lines.push(`complete -c groundcrew ${when} -a '(groundcrew nodes --names 2>/dev/null)'`);
    if (s.name === 'completion') lines.push(`complete -c groundcrew ${when} -a 'bash zsh fish'`);
    if (['validate', 'plan', 'demo'].includes(s.name)) lines.push(`complete -c groundcrew ${when} -F`);
  }
  return `${lines.join('\n')}\n`;
}
