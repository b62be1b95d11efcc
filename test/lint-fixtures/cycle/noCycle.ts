// Imports into a cycle without being part of one.
import type { A } from './typeCycleA';

export const none: A | undefined = undefined;
