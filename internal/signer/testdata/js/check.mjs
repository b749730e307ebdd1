// Independent checkers for the airlock signing endpoint: ethers, viem and
// jose verify what the endpoint at process.argv[2] (http URL) produced.
// Prints one JSON object; exits 1 if any check fails. Used from Go tests on
// the host and inside a sandbox (node reaches http://127.0.0.1:8550 there).
import { JsonRpcProvider, Transaction, verifyMessage, verifyTypedData, getAddress } from 'ethers';
import { createWalletClient, http, defineChain, verifyMessage as viemVerifyMessage, verifyTypedData as viemVerifyTypedData,
  parseTransaction, recoverTransactionAddress } from 'viem';
import { importJWK, jwtVerify, decodeProtectedHeader } from 'jose';
import { createPublicKey, verify as nodeVerify } from 'node:crypto';

const url = process.argv[2];
const results = {};
let failed = false;
const check = (name, ok, detail) => { results[name] = ok ? 'ok' : `FAIL ${detail ?? ''}`; if (!ok) failed = true; };

async function rpc(method, params) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.code} ${j.error.message}`);
  return j.result;
}

const mail = {
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: { Person: [{ name: 'name', type: 'string' }, { name: 'wallet', type: 'address' }],
    Mail: [{ name: 'from', type: 'Person' }, { name: 'to', type: 'Person' }, { name: 'contents', type: 'string' }] },
  message: { from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' }, contents: 'Hello, Bob!' },
};
const to = '0x3535353535353535353535353535353535353535';

try {
  // ethers v6 as a JSON-RPC signer.
  const provider = new JsonRpcProvider(url, 1, { staticNetwork: true, batchMaxCount: 1 });
  const accounts = await provider.send('eth_accounts', []);
  const address = getAddress(accounts[0]);
  const signer = await provider.getSigner(address);
  const msg = 'hello from the sandbox';
  check('ethers.personal_sign', verifyMessage(msg, await signer.signMessage(msg)) === address);
  const tsig = await signer.signTypedData(mail.domain, mail.types, mail.message);
  check('ethers.eth_signTypedData_v4', verifyTypedData(mail.domain, mail.types, mail.message, tsig) === address);
  const raw = await signer.signTransaction({ type: 2, chainId: 1, nonce: 7, to, value: 1000n, gasLimit: 21000n,
    maxFeePerGas: 30000000000n, maxPriorityFeePerGas: 1000000000n });
  const tx = Transaction.from(raw);
  check('ethers.eth_signTransaction.1559', tx.from === address && tx.to === to && tx.value === 1000n && tx.chainId === 1n && tx.nonce === 7, raw);
  const rawLegacy = await signer.signTransaction({ type: 0, chainId: 1, nonce: 8, to, value: 5n, gasLimit: 21000n, gasPrice: 20000000000n });
  const txl = Transaction.from(rawLegacy);
  check('ethers.eth_signTransaction.legacy155', txl.from === address && txl.type === 0 && txl.chainId === 1n, rawLegacy);
  const raw2930 = await signer.signTransaction({ type: 1, chainId: 1, nonce: 9, to, value: 5n, gasLimit: 30000n, gasPrice: 20000000000n,
    accessList: [{ address: to, storageKeys: ['0x' + '00'.repeat(31) + '01'] }] });
  const tx1 = Transaction.from(raw2930);
  check('ethers.eth_signTransaction.2930', tx1.from === address && tx1.type === 1 && tx1.accessList.length === 1, raw2930);

  // viem wallet client over HTTP JSON-RPC.
  const chain = defineChain({ id: 1, name: 'mainnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const wallet = createWalletClient({ chain, transport: http(url, { batch: false, retryCount: 0 }) });
  const [vaddr] = await wallet.getAddresses();
  const vsig = await wallet.signMessage({ account: vaddr, message: 'viem says hi' });
  check('viem.personal_sign', await viemVerifyMessage({ address: vaddr, message: 'viem says hi', signature: vsig }));
  const vtsig = await wallet.signTypedData({ account: vaddr, domain: mail.domain, types: mail.types, primaryType: 'Mail', message: mail.message });
  check('viem.eth_signTypedData_v4', await viemVerifyTypedData({ address: vaddr, domain: mail.domain, types: mail.types, primaryType: 'Mail', message: mail.message, signature: vtsig }));
  const vraw = await wallet.signTransaction({ account: vaddr, chain, to, value: 42n, nonce: 3, gas: 21000n,
    maxFeePerGas: 30000000000n, maxPriorityFeePerGas: 1000000000n });
  const vtx = parseTransaction(vraw);
  const vfrom = await recoverTransactionAddress({ serializedTransaction: vraw });
  check('viem.eth_signTransaction', vfrom.toLowerCase() === vaddr.toLowerCase() && vtx.value === 42n && vtx.chainId === 1, vraw);

  // jose: JWTs from airlock_signJWT verify with the public key alone.
  const keys = await rpc('airlock_keys', []);
  for (const k of keys.filter(k => k.type === 'ed25519' || k.type === 'p256')) {
    let jwk;
    if (k.type === 'ed25519') {
      jwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(k.public, 'hex').toString('base64url') };
    } else {
      const pub = Buffer.from(k.public, 'hex'); // 04 || X || Y
      jwk = { kty: 'EC', crv: 'P-256', x: pub.subarray(1, 33).toString('base64url'), y: pub.subarray(33).toString('base64url') };
    }
    let res;
    try { res = await rpc('airlock_signJWT', [{ key: k.name }]); } catch (e) { continue; } // no jwt policy for this key
    const alg = k.type === 'ed25519' ? 'EdDSA' : 'ES256';
    const { payload } = await jwtVerify(res.jwt, await importJWK(jwk, alg), { algorithms: [alg] });
    check(`jose.${alg}.${k.name}`, decodeProtectedHeader(res.jwt).alg === alg && typeof payload.exp === 'number' && payload.exp > payload.iat);
    results[`jose.${alg}.${k.name}.claims`] = { iss: payload.iss, aud: payload.aud, lifetime: payload.exp - payload.iat };
    if (k.type === 'ed25519') {
      try {
        const s = await rpc('airlock_sign', [{ key: k.name, purpose: process.env.AIRLOCK_CHECK_PURPOSE ?? 'release', text: 'artifact-sha256:abc' }]);
        const spki = createPublicKey({ key: jwk, format: 'jwk' });
        const ok = nodeVerify(null, Buffer.from(s.signed_message.slice(2), 'hex'), spki, Buffer.from(s.signature.slice(2), 'hex'));
        const bound = Buffer.from(s.signed_message.slice(2), 'hex').toString('latin1').startsWith('airlock-sign-v1\0');
        check(`node.ed25519.airlock_sign.${k.name}`, ok && bound);
      } catch (e) { /* no sign policy */ }
    }
  }
} catch (e) {
  check('exception', false, String(e && e.stack || e));
}
console.log(JSON.stringify(results, null, 1));
process.exit(failed ? 1 : 0);
