import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
/** A full garbage collection now, so what earlier work left behind is not collected inside the next measurement. */
export const collectGarbage = vm.runInNewContext('gc') as () => void;
