import { a } from './cycleA';

export const b = (): number => (a.length ? 0 : 1);
