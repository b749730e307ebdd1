#!/bin/bash
# Token policy (USDC max_amount 100, daily 500, approval=never, max_value 0): try to move more than 100 USDC
# per request or evade decoding: multicall (nested) with 2x80, approve+transfer, approve(max), trailing/short
# calldata, dirty address bits, permit()/transferWithAuthorization() calls, setApprovalForAll, undeclared token,
# Permit2 PermitBatch with the same token twice (also lower-case), DAI-style Permit(allowed=true),
# PermitWitnessTransferFrom, Permit value as hex; then a concurrent daily-limit race (10 x 60 USDC).
. "$(dirname "$0")/lib.sh"
fresh
up 'sandbox "atk" {
  backend = "namespace"
  memory = "512MiB"
  workspace { mode = "mountless" }
  network { preset = "locked-down" }
  signer {
    key "k" { ref = "dep" }
    policy "tokens" {
      key = "k"
      operations = ["eth_signTransaction", "eth_signTypedData_v4"]
      chain_ids  = [11155111]
      max_value = "0"
      rate = "1000/minute"
      approval = "never"
      token "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238" {
        symbol = "USDC"
        decimals = 6
        max_amount = "100"
        daily_limit = "500"
      }
    }
  }
}'
ADDR=$ADDR node - > $PROJ/cases <<'JS'
const { Interface } = require(process.env.JS_DIR);
const USDC="0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", F=process.env.ADDR.toLowerCase(), R="0x1111111111111111111111111111111111111111", P2="0x000000000022D473030F116dDEE9F6B43aC78BA3";
const erc=new Interface(["function transfer(address,uint256)","function approve(address,uint256)","function multicall(bytes[])","function permit(address,address,uint256,uint256,uint8,bytes32,bytes32)","function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)","function setApprovalForAll(address,bool)"]);
const U=(n)=>BigInt(n)*1000000n, t=(n)=>erc.encodeFunctionData("transfer",[R,U(n)]);
let nonce=100; const out=[];
const tx=(data,extra={})=>({jsonrpc:"2.0",id:1,method:"eth_signTransaction",params:[Object.assign({from:F,type:"0x2",chainId:"0xaa36a7",nonce:"0x"+(nonce++).toString(16),to:USDC,value:"0x0",gas:"0x30000",maxFeePerGas:"0x1",maxPriorityFeePerGas:"0x1",data},extra)]});
const td=(x)=>({jsonrpc:"2.0",id:1,method:"eth_signTypedData_v4",params:[F,JSON.stringify(x)]});
const D3=[{name:"name",type:"string"},{name:"chainId",type:"uint256"},{name:"verifyingContract",type:"address"}];
const D4=[{name:"name",type:"string"},{name:"version",type:"string"},{name:"chainId",type:"uint256"},{name:"verifyingContract",type:"address"}];
const TPD=[{name:"token",type:"address"},{name:"amount",type:"uint160"},{name:"expiration",type:"uint48"},{name:"nonce",type:"uint48"}];
const det=(n,tok=USDC,nn=0)=>({token:tok,amount:U(n).toString(),expiration:"9999999999",nonce:String(nn)});
const batch=(d)=>td({types:{EIP712Domain:D3,PermitBatch:[{name:"details",type:"PermitDetails[]"},{name:"spender",type:"address"},{name:"sigDeadline",type:"uint256"}],PermitDetails:TPD},primaryType:"PermitBatch",domain:{name:"Permit2",chainId:11155111,verifyingContract:P2},message:{details:d,spender:R,sigDeadline:"9999999999"}});
const permit=(v)=>td({types:{EIP712Domain:D4,Permit:[{name:"owner",type:"address"},{name:"spender",type:"address"},{name:"value",type:"uint256"},{name:"nonce",type:"uint256"},{name:"deadline",type:"uint256"}]},primaryType:"Permit",domain:{name:"USDC",version:"2",chainId:11155111,verifyingContract:USDC},message:{owner:F,spender:R,value:v,nonce:"0",deadline:"9999999999"}});
const add=(name,expect,body)=>out.push(JSON.stringify({name,expect,body}));
add("control_transfer_50","sign",tx(t(50)));
add("transfer_150","refuse",tx(t(150)));
add("multicall_2x80","refuse",tx(erc.encodeFunctionData("multicall",[[t(80),t(80)]])));
add("multicall_nested_2x80","refuse",tx(erc.encodeFunctionData("multicall",[[erc.encodeFunctionData("multicall",[[t(80)]]),t(80)]])));
add("approve80_transfer80","refuse",tx(erc.encodeFunctionData("multicall",[[erc.encodeFunctionData("approve",[R,U(80)]),t(80)]])));
add("approve_max","refuse",tx(erc.encodeFunctionData("approve",[R,(1n<<256n)-1n])));
add("transfer_trailing_bytes","refuse",tx(t(150)+"00".repeat(32)));
add("transfer_dirty_addr","refuse",tx("0xa9059cbb"+"ff".repeat(12)+R.slice(2)+U(150).toString(16).padStart(64,"0")));
add("permit_call","refuse",tx(erc.encodeFunctionData("permit",[F,R,10n**30n,10n**10n,27,"0x"+"11".repeat(32),"0x"+"22".repeat(32)])));
add("transferWithAuthorization","refuse",tx(erc.encodeFunctionData("transferWithAuthorization",[F,R,10n**12n,0,10n**10n,"0x"+"11".repeat(32),27,"0x"+"11".repeat(32),"0x"+"22".repeat(32)])));
add("setApprovalForAll","refuse",tx(erc.encodeFunctionData("setApprovalForAll",[R,true])));
add("undeclared_token","refuse",tx(t(50),{to:"0x2222222222222222222222222222222222222222"}));
add("control_permit2_batch_50","sign",batch([det(50)]));
add("permit2_batch_2x80_same","refuse",batch([det(80),det(80,USDC,1)]));
add("permit2_batch_2x80_lower","refuse",batch([det(80),det(80,USDC.toLowerCase(),1)]));
add("permit_150_hex","refuse",permit("0x"+U(150).toString(16)));
add("dai_permit_allowed","refuse",td({types:{EIP712Domain:D4,Permit:[{name:"holder",type:"address"},{name:"spender",type:"address"},{name:"nonce",type:"uint256"},{name:"expiry",type:"uint256"},{name:"allowed",type:"bool"}]},primaryType:"Permit",domain:{name:"Dai",version:"1",chainId:11155111,verifyingContract:USDC},message:{holder:F,spender:R,nonce:"0",expiry:"0",allowed:true}}));
add("permit2_witness_1e6","refuse",td({types:{EIP712Domain:D3,PermitWitnessTransferFrom:[{name:"permitted",type:"TokenPermissions"},{name:"spender",type:"address"},{name:"nonce",type:"uint256"},{name:"deadline",type:"uint256"},{name:"witness",type:"W"}],TokenPermissions:[{name:"token",type:"address"},{name:"amount",type:"uint256"}],W:[{name:"x",type:"uint256"}]},primaryType:"PermitWitnessTransferFrom",domain:{name:"Permit2",chainId:11155111,verifyingContract:P2},message:{permitted:{token:USDC,amount:U(1000000).toString()},spender:R,nonce:"0",deadline:"9999999999",witness:{x:"1"}}}));
console.log(out.join("\n"));
JS
run_cases $PROJ/cases
[ $CTRL_FAIL -gt 0 ] && setup_fail "control refused"
# daily race: 100 already spent by the two controls; 10 concurrent 60-USDC transfers, at most 6 fit in 500-100=400
for i in $(seq 1 10); do echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"eth_signTransaction\",\"params\":[{\"from\":\"$ADDR\",\"type\":\"0x2\",\"chainId\":\"0xaa36a7\",\"nonce\":\"0x$((500+i))\",\"to\":\"0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238\",\"value\":\"0x0\",\"gas\":\"0x30000\",\"maxFeePerGas\":\"0x1\",\"maxPriorityFeePerGas\":\"0x1\",\"data\":\"0xa9059cbb0000000000000000000000001111111111111111111111111111111111111111$(printf %064x 60000000)\"}]}"; done > $PROJ/race
N=$(airlock exec atk -- sh -c 'cat > /tmp/race; i=0; while IFS= read -r l; do i=$((i+1)); echo "$l" > /tmp/q$i; done < /tmp/race
for f in /tmp/q*; do curl -s -m 20 -XPOST --data-binary @$f $AIRLOCK_SIGNER > $f.r & done; wait; cat /tmp/q*.r | grep -o "\"result\"" | wc -l' < $PROJ/race)
echo "  daily race: $N of 10 x 60 USDC signed (400 USDC left -> at most 6)"
[ $BAD -gt 0 ] || [ "${N:-0}" -gt 6 ] && result got || result def
