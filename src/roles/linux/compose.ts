// A Docker Compose project of Contrail or Kolla containers: its file, and its containers up at the desired images.

import { stringify } from 'yaml';
import { bashQuote } from '../../dataplane/quote.js';
import { applied } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { fact, fileContent, fileFact } from './facts.js';

export interface ComposeService {
  image: string;
  env_file?: string[];
  privileged?: boolean;
}

export function composeFile(services: Record<string, ComposeService>): string {
  const full = Object.fromEntries(Object.entries(services).map(([name, s]) => [name, { ...s, network_mode: 'host', restart: 'always' }]));
  return stringify({ services: full });
}

export function composeFileResource(project: string, path: string, content: string): Resource {
  const id = `compose.${project}.file`;
  return {
    name: `compose/${project}/file`,
    facts: [fileFact(id, path, bashQuote)],
    test: (facts) => compare({ Content: [fileContent(facts, id), content] }),
    async set({ exec, signal }) {
      const dir = path.slice(0, path.lastIndexOf('/'));
      return applied(exec, `mkdir -p ${bashQuote(dir)} && cat > ${bashQuote(path)}`, `write ${path}`, {
        stdin: content,
        signal,
      });
    },
  };
}

interface PsEntry {
  Service?: string;
  Image?: string;
  State?: string;
}

export function composeUpResource(project: string, path: string, services: Record<string, ComposeService>, disruptive = false): Resource {
  const id = `compose.${project}.ps`;
  return {
    name: `compose/${project}/up`,
    ...(disruptive ? { disruptive } : {}),
    facts: [{ id, sh: `docker compose -f ${bashQuote(path)} ps --format json` }],
    test(facts) {
      let entries: PsEntry[] = [];
      try {
        const out = fact(facts, id).stdout.trim();
        entries = out.startsWith('[')
          ? (JSON.parse(out) as PsEntry[])
          : out
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as PsEntry);
      } catch {
        entries = [];
      }
      return compare(
        Object.fromEntries(
          Object.entries(services).map(([name, s]) => {
            const e = entries.find((x) => x.Service === name);
            return [name, [e ? `${e.Image} ${e.State}` : null, `${s.image} running`]];
          }),
        ),
      );
    },
    async set({ exec, signal }) {
      return applied(exec, `docker compose -f ${bashQuote(path)} up -d --remove-orphans`, `compose up ${project}`, {
        signal,
      });
    },
  };
}
