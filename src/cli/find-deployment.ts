// Finding a service deployment by name the way the operator does: `name_contains` over every page,
// then an exact match (the filter is a substring match).
import type { ServiceClient } from '../service/client.ts';
import type { Deployment } from '../service/wire.ts';

export async function findDeploymentByName(
  client: ServiceClient,
  name: string,
): Promise<Deployment | undefined> {
  const candidates = await client.listAllDeployments({ name_contains: name });
  return candidates.find((d) => d.name === name);
}
