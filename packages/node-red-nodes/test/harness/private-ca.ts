import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM texts of a throwaway private CA, a server certificate for 127.0.0.1 and a client certificate. */
export interface PrivateCa {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/**
 * Makes a private CA and two certificates signed by it with Debian's openssl, in a temp
 * directory that is deleted at once: keys exist only in memory for the test run, nothing is
 * stored in the repository. This is what an on-premises deployment with its own CA looks like.
 */
export function makePrivateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'observation-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=Observation test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.pem'),
    );
    const leaf = (name: string, subject: string, extensions: string) => {
      writeFileSync(at(`${name}.ext`), extensions);
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        subject,
        '-keyout',
        at(`${name}.key`),
        '-out',
        at(`${name}.csr`),
      );
      openssl(
        'x509',
        '-req',
        '-in',
        at(`${name}.csr`),
        '-CA',
        at('ca.pem'),
        '-CAkey',
        at('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        at(`${name}.ext`),
        '-out',
        at(`${name}.pem`),
      );
    };
    leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    leaf('client', '/CN=node-red', 'extendedKeyUsage=clientAuth\n');
    const read = (name: string) => readFileSync(at(name), 'utf8');
    return {
      ca: read('ca.pem'),
      serverCert: read('server.pem'),
      serverKey: read('server.key'),
      clientCert: read('client.pem'),
      clientKey: read('client.key'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
