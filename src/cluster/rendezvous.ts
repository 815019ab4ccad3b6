// Rendezvous (highest random weight) hashing: each node goes to the member whose hash with it is highest, so
// a member joining or leaving moves only the nodes it wins or held (Thaler and Ravishankar, 1998).

import { createHash } from 'node:crypto';

function weight(member: string, node: string): string {
  return createHash('sha256').update(member).update('\0').update(node).digest('hex');
}

/** The member that should drive `node` among `members`; none when there is no member. */
export function ownerOf(node: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = '';
  for (const member of members) {
    const w = weight(member, node);
    if (w > bestWeight || (w === bestWeight && best !== undefined && member < best)) {
      best = member;
      bestWeight = w;
    }
  }
  return best;
}
