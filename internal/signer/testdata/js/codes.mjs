// How viem and ethers classify the endpoint's JSON-RPC errors
// (wallet_codes_test.go): calls at process.argv[2] and prints
// {case: {viem: ErrorClassName, viemCode, ethers: error.code}}.
import { createWalletClient, http, custom } from 'viem';
import { JsonRpcProvider } from 'ethers';

const url = process.argv[2];
const addr = process.argv[3]; // asks a person (the test denies)
const limited = process.argv[4]; // rate limit used up
const cases = {
  denied: ['personal_sign', ['0x' + Buffer.from('deny me').toString('hex'), addr]],
  policy: ['eth_signTypedData_v4', [addr, JSON.stringify({ types: { EIP712Domain: [{ name: 'chainId', type: 'uint256' }], T: [{ name: 'v', type: 'uint8' }] }, primaryType: 'T', domain: { chainId: 5 }, message: { v: 1 } })]],
  unsupported: ['eth_sign', [addr, '0x' + '00'.repeat(32)]],
  limit: ['personal_sign', ['0x01', limited]],
  params: ['personal_sign', []],
};
const out = {};
const wallet = createWalletClient({ transport: http(url, { batch: false, retryCount: 0 }) });
const provider = new JsonRpcProvider(url, 1, { staticNetwork: true, batchMaxCount: 1 });
for (const [name, [method, params]] of Object.entries(cases)) {
  const r = {};
  try { await wallet.request({ method, params }); r.viem = 'ok'; } catch (e) {
    let c = e; while (c && c.code === undefined && c.cause) c = c.cause;
    r.viem = e.name; r.viemCode = c?.code;
  }
  try { await provider.send(method, params); r.ethers = 'ok'; } catch (e) { r.ethers = e.code; }
  out[name] = r;
}
// ethers maps a denial to ACTION_REJECTED on its signer methods.
try { await (await provider.getSigner(addr)).signMessage('deny me too'); out.denied.ethersSigner = 'ok'; } catch (e) { out.denied.ethersSigner = e.code; }
console.log(JSON.stringify(out));
