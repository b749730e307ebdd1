// usage: node decode.cjs RAWTX  -> prints the parsed transaction as JSON (outside-attack scripts)
const { Transaction } = require('ethers');
const raw = process.argv[2];
const t = Transaction.from(raw);
console.log(JSON.stringify({type:t.type, chainId:t.chainId.toString(), to:t.to, value:t.value.toString(), nonce:t.nonce, data:t.data, gasLimit:t.gasLimit.toString(), from:t.from, gasPrice: t.gasPrice?.toString(), maxFee:t.maxFeePerGas?.toString()}));
