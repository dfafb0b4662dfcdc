/** ajv-formats' formats and the spec's own, which the service's readers judge (src/http/spec-formats.ts). */
import type Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SPEC_FORMATS } from '../../src/http/spec-formats';

export function withFormats(ajv: Ajv2020): Ajv2020 {
  addFormats(ajv);
  for (const [name, format] of Object.entries(SPEC_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}
