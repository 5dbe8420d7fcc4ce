// Filled in by the storage layer: prepares per-run databases.
export default async function setup(): Promise<void> {}
