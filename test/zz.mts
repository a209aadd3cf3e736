import { luhnCheckDigit } from '../src/domain/esim-issuer.js';
console.log('894400000000000001' + luhnCheckDigit('894400000000000001'));
