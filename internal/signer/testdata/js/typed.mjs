// EIP-712 reference hashes for the differential test (typed_diff_test.go):
// reads a JSON array of {name, json} (typed data as JSON text) from the file
// at process.argv[2] and prints {name: {ethers, viem, sigutil}}, each the
// 0x digest or "error: ..." when that library refuses the input.
import { readFileSync } from 'node:fs';
import { TypedDataEncoder, keccak256, concat } from 'ethers';
import { hashTypedData } from 'viem';
import { TypedDataUtils, SignTypedDataVersion } from '@metamask/eth-sig-util';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = {};
const run = (f) => { try { const h = f(); return typeof h === 'string' ? h.toLowerCase() : '0x' + Buffer.from(h).toString('hex'); } catch (e) { return 'error: ' + String(e.message ?? e).split('\n')[0].slice(0, 160); } };

for (const c of cases) {
  let td;
  try { td = JSON.parse(c.json); } catch (e) { out[c.name] = { ethers: 'error: json', viem: 'error: json', sigutil: 'error: json' }; continue; }
  out[c.name] = {
    // ethers derives EIP712Domain from the domain's fields; the message type
    // is hashed as given (as ethers' JsonRpcSigner would send it).
    ethers: run(() => {
      const types = { ...td.types };
      delete types.EIP712Domain;
      const enc = TypedDataEncoder.from(types);
      return keccak256(concat(['0x1901', TypedDataEncoder.hashDomain(td.domain), enc.hashStruct(td.primaryType, td.message)]));
    }),
    viem: run(() => hashTypedData({ domain: td.domain, types: td.types, primaryType: td.primaryType, message: td.message })),
    sigutil: run(() => TypedDataUtils.eip712Hash(td, SignTypedDataVersion.V4)),
  };
}
console.log(JSON.stringify(out));
