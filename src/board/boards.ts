/**
 * The boards a deployment runs (config BOARDS), with their titles and
 * descriptions. Known ids carry their own words; any other configured id gets
 * a plain title made from the id. The feature-request board keeps the id
 * `seneschal-features`.
 */
export interface Board {
  id: string;
  title: string;
  description: string;
}

const KNOWN: Record<string, Omit<Board, "id">> = {
  "seneschal-features": {
    title: "Feature requests",
    description: "Ask for a feature of this service, or boost the requests you want built first.",
  },
  "data-requests": {
    title: "Data requests",
    description: "Data sets, chain facts or feeds you would pay for.",
  },
  "agent-services": {
    title: "Agent services",
    description: "Services offered by and for autonomous agents.",
  },
  bounties: {
    title: "Bounties",
    description: "Paid tasks: say what you want done and how you pay.",
  },
  announcements: {
    title: "Announcements",
    description: "Releases, launches and news.",
  },
};

export function boardCatalogue(ids: readonly string[]): Board[] {
  return ids.map((id) => {
    const known = KNOWN[id];
    if (known) return { id, ...known };
    const words = id.split("-").filter(Boolean);
    const title = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ");
    return { id, title, description: `Notices about ${words.join(" ")}.` };
  });
}
