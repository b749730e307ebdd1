package signer

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// What moves: calldata and typed data decoded into token transfers,
// approvals and permits for the approval prompt, the audit log and token
// budgets. Calldata the signer cannot decode is reported as a move of kind
// "unknown", never silently passed over.

var stdABI = sync.OnceValue(func() *abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABI))
	if err != nil {
		panic("signer: token ABI: " + err.Error())
	}
	return &a
})

// maxUint256 is what "unlimited" approvals use.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// MoveKindUnknown marks calldata the signer could not decode.
const MoveKindUnknown = "unknown"

// spends reports whether a move of this kind lets tokens leave (and so
// counts against token budgets).
func (m Move) spends() bool {
	switch m.Kind {
	case MoveKindUnknown, "multicall", MoveKindSafeCall, MoveKindSafeDelegatecall:
		return false
	case "setApprovalForAll":
		return m.Approved != nil && *m.Approved
	}
	return true
}

// amount is what the move counts against a token budget: its amount, or
// unlimited for an operator approval.
func (m Move) amount() *big.Int {
	if m.Kind == "setApprovalForAll" {
		return maxUint256
	}
	v, ok := new(big.Int).SetString(m.Amount, 10)
	if !ok {
		return maxUint256
	}
	return v
}

// decodeCalldata decodes data sent to contract token.
func decodeCalldata(token common.Address, data []byte, depth int) []Move {
	unknown := func(note string) []Move { return []Move{{Kind: MoveKindUnknown, Token: token.Hex(), Note: note}} }
	if len(data) == 0 {
		return nil
	}
	if len(data) < 4 {
		return unknown(fmt.Sprintf("%d bytes of calldata, too short for a function selector; this may do anything", len(data)))
	}
	if mv, ok := decodeSafeExec(token, data, depth); ok {
		return mv
	}
	m, err := stdABI().MethodById(data[:4])
	if err != nil {
		return unknown(fmt.Sprintf("selector %s is not a standard token function the signer decodes; this call may move tokens or grant approvals", hexutil.Encode(data[:4])))
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		return unknown(fmt.Sprintf("calldata for %s does not decode", m.Sig))
	}
	// Only the canonical encoding is decoded: trailing or re-pointed bytes
	// could mean something else to the contract.
	if again, err := m.Inputs.Pack(args...); err != nil || !bytes.Equal(again, data[4:]) {
		return unknown(fmt.Sprintf("calldata for %s is not in canonical ABI encoding", m.Sig))
	}
	addr := func(i int) string { return args[i].(common.Address).Hex() }
	num := func(i int) string { return args[i].(*big.Int).String() }
	t := token.Hex()
	switch m.Sig {
	case "transfer(address,uint256)":
		return []Move{{Kind: "erc20.transfer", Token: t, To: addr(0), Amount: num(1)}}
	case "transferFrom(address,address,uint256)":
		return []Move{{Kind: "erc20.transferFrom", Token: t, From: addr(0), To: addr(1), Amount: num(2), Note: "for an ERC-721 contract the amount is a token id"}}
	case "approve(address,uint256)":
		return []Move{{Kind: "erc20.approve", Token: t, To: addr(0), Amount: num(1), Note: approveNote(args[1].(*big.Int))}}
	case "increaseAllowance(address,uint256)":
		return []Move{{Kind: "erc20.increaseAllowance", Token: t, To: addr(0), Amount: num(1)}}
	case "safeTransferFrom(address,address,uint256)", "safeTransferFrom(address,address,uint256,bytes)":
		return []Move{{Kind: "erc721.safeTransferFrom", Token: t, From: addr(0), To: addr(1), TokenID: num(2), Amount: "1"}}
	case "safeTransferFrom(address,address,uint256,uint256,bytes)":
		return []Move{{Kind: "erc1155.safeTransferFrom", Token: t, From: addr(0), To: addr(1), TokenID: num(2), Amount: num(3)}}
	case "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)":
		ids, amts := args[2].([]*big.Int), args[3].([]*big.Int)
		if len(ids) != len(amts) {
			return unknown("safeBatchTransferFrom with different numbers of ids and amounts")
		}
		var out []Move
		for i := range ids {
			out = append(out, Move{Kind: "erc1155.safeBatchTransferFrom", Token: t, From: addr(0), To: addr(1), TokenID: ids[i].String(), Amount: amts[i].String()})
		}
		return out
	case "setApprovalForAll(address,bool)":
		ok := args[1].(bool)
		note := "the operator may move every token of this collection"
		if !ok {
			note = "revokes the operator"
		}
		return []Move{{Kind: "setApprovalForAll", Token: t, To: addr(0), Approved: &ok, Note: note}}
	case "multicall(bytes[])", "multicall(uint256,bytes[])":
		calls, deadline := args[len(args)-1].([][]byte), ""
		if len(args) == 2 {
			deadline = showTime(args[0].(*big.Int))
		}
		if depth >= 4 {
			return unknown("multicall nested more than 4 deep")
		}
		var out []Move
		for _, c := range calls {
			for _, mv := range decodeCalldata(token, c, depth+1) {
				if deadline != "" && mv.Deadline == "" {
					mv.Deadline = deadline
				}
				out = append(out, mv)
			}
		}
		if len(out) == 0 {
			out = []Move{{Kind: "multicall", Token: t, Note: "no calls"}}
		}
		return out
	}
	return unknown("selector " + hexutil.Encode(data[:4]) + " not handled")
}

func approveNote(v *big.Int) string {
	if v.Cmp(maxUint256) == 0 {
		return "unlimited allowance"
	}
	return ""
}

// showTime renders a unix-seconds deadline with its UTC time.
func showTime(v *big.Int) string {
	if !v.IsInt64() || v.Int64() > 1<<40 {
		return v.String() + " (never)"
	}
	return v.String() + " (" + time.Unix(v.Int64(), 0).UTC().Format(time.RFC3339) + ")"
}

// decodeTypedMoves recognizes EIP-2612 (and DAI) Permit and Permit2's
// PermitSingle, PermitBatch and PermitTransferFrom (witness variants too)
// in normalized typed data.
func decodeTypedMoves(t *typedData) []Move {
	msg, contract := t.message, t.contract
	pt := t.td.PrimaryType
	switch {
	case pt == "Permit" && t.declares("owner", "address", "spender", "address", "value", "uint256", "deadline", "uint256"):
		v, _ := msg["value"].(*big.Int)
		return []Move{{Kind: "eip2612.permit", Token: contract, From: msgStr(msg, "owner"), To: msgStr(msg, "spender"),
			Amount: msgNum(msg, "value"), Deadline: msgDeadline(msg, "deadline"), Note: approveNote(v)}}
	case pt == "Permit" && t.declares("holder", "address", "spender", "address", "expiry", "uint256", "allowed", "bool"):
		amt, note := "0", "revokes the allowance"
		if b, _ := msg["allowed"].(bool); b {
			amt, note = maxUint256.String(), "unlimited allowance"
		}
		return []Move{{Kind: "dai.permit", Token: contract, From: msgStr(msg, "holder"), To: msgStr(msg, "spender"),
			Amount: amt, Deadline: msgDeadline(msg, "expiry"), Note: note}}
	case pt == "PermitSingle" || pt == "PermitBatch":
		return permit2AllowanceMoves(pt, msg)
	case strings.HasPrefix(pt, "Permit") && strings.Contains(pt, "TransferFrom"):
		return permit2TransferMoves(pt, msg)
	case pt == "SafeTx" && t.declares("to", "address", "value", "uint256", "data", "bytes", "operation", "uint8",
		"gasPrice", "uint256", "gasToken", "address", "refundReceiver", "address"):
		return decodeSafeTyped(t)
	}
	return nil
}

// permit2AllowanceMoves: one move per PermitSingle/PermitBatch "details"
// entry.
func permit2AllowanceMoves(pt string, msg map[string]any) []Move {
	var out []Move
	for _, x := range oneOrMany(msg["details"]) {
		d, _ := x.(map[string]any)
		if d == nil {
			continue
		}
		note := "Permit2 allowance"
		if e := msgDeadline(d, "expiration"); e != "" {
			note += ", expires " + e
		}
		out = append(out, Move{Kind: "permit2." + lowerFirst(pt), Token: msgStr(d, "token"), To: msgStr(msg, "spender"),
			Amount: msgNum(d, "amount"), Deadline: msgDeadline(msg, "sigDeadline"), Note: note})
	}
	return out
}

// permit2TransferMoves: one move per PermitTransferFrom "permitted" entry.
func permit2TransferMoves(pt string, msg map[string]any) []Move {
	var out []Move
	for _, x := range oneOrMany(msg["permitted"]) {
		p, _ := x.(map[string]any)
		if p == nil {
			continue
		}
		out = append(out, Move{Kind: "permit2." + lowerFirst(pt), Token: msgStr(p, "token"), To: msgStr(msg, "spender"),
			Amount: msgNum(p, "amount"), Deadline: msgDeadline(msg, "deadline"), Note: "Permit2 signature transfer"})
	}
	return out
}

// declares reports whether the primary type declares each (name, type)
// pair given.
func (t *typedData) declares(fields ...string) bool {
	decl := map[string]string{}
	for _, f := range t.td.Types[t.td.PrimaryType] {
		decl[f.Name] = f.Type
	}
	for i := 0; i < len(fields); i += 2 {
		if decl[fields[i]] != fields[i+1] {
			return false
		}
	}
	return true
}

// oneOrMany is an object as a one-element list, a list as itself.
func oneOrMany(v any) []any {
	switch v := v.(type) {
	case map[string]any:
		return []any{v}
	case []any:
		return v
	}
	return nil
}

func msgStr(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func msgNum(m map[string]any, k string) string {
	if v, ok := m[k].(*big.Int); ok {
		return v.String()
	}
	return ""
}

func msgDeadline(m map[string]any, k string) string {
	if v, ok := m[k].(*big.Int); ok {
		return showTime(v)
	}
	return ""
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// tokenInfo is a token declared in some policy of the caller.
type tokenInfo struct {
	symbol   string
	decimals int
}

// showAmounts fills AmountText for tokens the caller's policies declare.
func (c *Caller) showAmounts(moves []Move) {
	for i := range moves {
		m := &moves[i]
		ti, ok := c.tokens[common.HexToAddress(m.Token)]
		if !ok || m.Amount == "" || m.Kind == "setApprovalForAll" {
			continue
		}
		v, ok := new(big.Int).SetString(m.Amount, 10)
		if !ok {
			continue
		}
		sym := ti.symbol
		if sym == "" {
			sym = "tokens"
		}
		if v.Cmp(maxUint256) == 0 {
			m.AmountText = "unlimited " + sym
			continue
		}
		m.AmountText = formatUnits(v, ti.decimals) + " " + sym
	}
}

// formatUnits writes v base units with decimals as a decimal number.
func formatUnits(v *big.Int, decimals int) string {
	s := v.String()
	if decimals == 0 {
		return s
	}
	for len(s) <= decimals {
		s = "0" + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}
