// A value cycle.
import { b } from './cycleB';

export const a = (): number => b() + 1;
