// The baseline of bench/startup.mjs: a plain Node script making the same one GET as
// `lic keys list -o json` with node:http, parsing the reply and printing it, nothing else.
// BASE_URL and API_KEY come from the environment.
import { request } from 'node:http';

const req = request(
  `${process.env.BASE_URL}/v1/api-keys`,
  { headers: { 'x-api-key': process.env.API_KEY, accept: 'application/json' } },
  (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (body += d));
    res.on('end', () => {
      process.stdout.write(`${JSON.stringify(JSON.parse(body))}\n`);
      if (res.statusCode !== 200) process.exitCode = 1;
    });
  },
);
req.end();
