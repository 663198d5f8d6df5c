// List responses read item by item: the page wrapper must hold, but an item that breaks the contract is
// left out and reported on its own, so one bad item never hides the others (tolerant reading).
import { z } from 'zod';
import { type ContractIssue, contractIssues, type ServiceContractError } from './errors.ts';
import type { BodyReader } from './transport.ts';
import type { Page } from './wire.ts';

/** An item of a list response left out because it breaks the contract. */
export interface RejectedItem {
  /** Its position in the response's `resources`. */
  index: number;
  /** Its `id` and `name` as sent, when they are strings: whom it concerns. Nothing else of it is kept. */
  id: string | undefined;
  name: string | undefined;
  /** Names the endpoint and what is wrong, by path in the response body (`resources[3].id`). */
  error: ServiceContractError;
}

/** One page of a list: the items that hold, and those left out. */
export interface ListedPage<T> extends Page<T> {
  rejected: RejectedItem[];
}

const Wrapper = z.looseObject({
  resources: z.array(z.unknown()),
  offset: z.number().int().nonnegative(),
});

const stringAt = (item: unknown, key: string): string | undefined => {
  const value =
    typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/** Reads a page wrapper (§2.14) whole and each of its items with `item`, leaving out the bad ones. */
export function pageReader<T>(item: z.ZodType<T>): BodyReader<ListedPage<T>> {
  return (json, contractError) => {
    const wrapper = Wrapper.safeParse(json);
    if (!wrapper.success) return { issues: contractIssues(wrapper.error) };
    const { kept: resources, rejected } = readItems(wrapper.data.resources, item, 'resources', contractError);
    return { value: { ...wrapper.data, resources, rejected }, violations: rejected.length };
  };
}

/** Each item of the list at `key` read on its own: those that hold, and those left out (with why). */
export function readItems<T>(
  items: readonly unknown[],
  item: z.ZodType<T>,
  key: string,
  contractError: (issues: ContractIssue[]) => ServiceContractError,
): { kept: T[]; rejected: RejectedItem[] } {
  const kept: T[] = [];
  const rejected: RejectedItem[] = [];
  items.forEach((raw, index) => {
    const parsed = item.safeParse(raw);
    if (parsed.success) kept.push(parsed.data);
    else
      rejected.push({
        index,
        id: stringAt(raw, 'id'),
        name: stringAt(raw, 'name'),
        error: contractError(contractIssues(parsed.error, [key, index])),
      });
  });
  return { kept, rejected };
}

/** One line about the items left out of a list of `kind`s (a singular noun): whom each concerns and why. */
export function describeLeftOut(rejected: readonly RejectedItem[], kind: string): string {
  const which =
    rejected.length === 1
      ? `1 ${kind} whose entry breaks`
      : `${rejected.length} ${kind}s whose entries break`;
  return `left out ${which} the service interface: ${rejected.map(describeRejected).join('; ')}`;
}

/** An item left out: whom it concerns (as sent), and what is wrong, by path. */
function describeRejected(item: RejectedItem): string {
  const who = [item.id && `id ${item.id}`, item.name && `name ${item.name}`].filter(Boolean).join(', ');
  const what = item.error.contractIssues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return `resources[${item.index}]${who ? ` (${who})` : ''}: ${what}`;
}
