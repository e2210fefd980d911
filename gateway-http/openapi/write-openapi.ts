import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiText } from './openapi-text';

/** `npm run openapi:generate`: writes the committed copy of the document. */
const target = join(__dirname, '..', '..', '..', 'gateway-http', 'openapi.json');
writeFileSync(target, openApiText());
process.stdout.write(`wrote ${target}\n`);
