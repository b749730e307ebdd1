// Safe transactions encoded by ethers (an independent encoder for the
// signer's Safe decoding, prompt9_test.go): reads a JSON array of
// {to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken,
// refundReceiver, nonce} from the file at process.argv[2] and the Safe's
// address and chain id from argv[3], argv[4]; prints a JSON array of
// {calldata, safeTxHash}: execTransaction calldata (empty signatures) and
// the EIP-712 hash of the SafeTx an owner signs.
import { readFileSync } from 'node:fs';
import { Interface, TypedDataEncoder } from 'ethers';

const iface = new Interface(['function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)']);
const types = { SafeTx: [
  { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'data', type: 'bytes' },
  { name: 'operation', type: 'uint8' }, { name: 'safeTxGas', type: 'uint256' }, { name: 'baseGas', type: 'uint256' },
  { name: 'gasPrice', type: 'uint256' }, { name: 'gasToken', type: 'address' }, { name: 'refundReceiver', type: 'address' },
  { name: 'nonce', type: 'uint256' }] };
const txs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const domain = { chainId: Number(process.argv[4]), verifyingContract: process.argv[3] };
console.log(JSON.stringify(txs.map((t) => ({
  calldata: iface.encodeFunctionData('execTransaction', [t.to, t.value, t.data, t.operation, t.safeTxGas, t.baseGas, t.gasPrice, t.gasToken, t.refundReceiver, '0x']),
  safeTxHash: TypedDataEncoder.hash(domain, types, t),
}))));
