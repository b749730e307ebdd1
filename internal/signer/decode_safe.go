package signer

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Safe (Gnosis Safe) transactions, as calldata of execTransaction sent to
// the Safe and as SafeTx typed data an owner signs: the call the Safe will
// make (to, value, data) and how (operation 0 = CALL, 1 = DELEGATECALL).
// A DELEGATECALL runs the target's code as the Safe itself, with its
// storage and every asset it holds: the target can change owners, add
// modules or send anything, whatever its calldata seems to say, so it is
// flagged high risk and its calldata is not decoded as what it moves (it
// is reported unknown, which token budgets refuse).

// safeABI is the Safe's execTransaction (v1.0 to v1.4, same selector
// 0x6a761202).
var safeABI = sync.OnceValue(func() *abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"execTransaction","inputs":[
{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"},{"name":"operation","type":"uint8"},
{"name":"safeTxGas","type":"uint256"},{"name":"baseGas","type":"uint256"},{"name":"gasPrice","type":"uint256"},
{"name":"gasToken","type":"address"},{"name":"refundReceiver","type":"address"},{"name":"signatures","type":"bytes"}]}]`))
	if err != nil {
		panic("signer: Safe ABI: " + err.Error())
	}
	return &a
})

// Move kinds for Safe transactions.
const (
	MoveKindSafeCall         = "safe.call"
	MoveKindSafeDelegatecall = "safe.delegatecall"
)

// RiskHigh marks a move a person should read first: an unlimited amount,
// an operator approval, a delegatecall, calldata nobody decoded.
const RiskHigh = "high"

// safeTx is one Safe transaction's fields as signed.
type safeTx struct {
	safe, to, gasToken, refund common.Address
	value, gasPrice            *big.Int
	data                       []byte
	operation                  *big.Int
}

// decodeSafeExec decodes execTransaction calldata sent to safe; ok is
// false when data is not that call.
func decodeSafeExec(safe common.Address, data []byte, depth int) (moves []Move, ok bool) {
	m, err := safeABI().MethodById(data[:4])
	if err != nil {
		return nil, false
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		return []Move{{Kind: MoveKindUnknown, Token: safe.Hex(), Note: "execTransaction calldata does not decode"}}, true
	}
	if again, err := m.Inputs.Pack(args...); err != nil || !bytesEqual(again, data[4:]) {
		return []Move{{Kind: MoveKindUnknown, Token: safe.Hex(), Note: "execTransaction calldata is not in canonical ABI encoding"}}, true
	}
	tx := safeTx{safe: safe, to: args[0].(common.Address), value: args[1].(*big.Int), data: args[2].([]byte),
		operation: new(big.Int).SetUint64(uint64(args[3].(uint8))), gasPrice: args[6].(*big.Int),
		gasToken: args[7].(common.Address), refund: args[8].(common.Address)}
	return tx.moves(depth), true
}

// decodeSafeTyped decodes SafeTx typed data (the Safe is the domain's
// verifyingContract).
func decodeSafeTyped(t *typedData) []Move {
	msg := t.message
	addr := func(k string) common.Address { return common.HexToAddress(msgStr(msg, k)) }
	num := func(k string) *big.Int {
		if v, ok := msg[k].(*big.Int); ok {
			return v
		}
		return new(big.Int)
	}
	data, err := hexutil.Decode(msgStr(msg, "data"))
	if msgStr(msg, "data") == "0x" {
		data, err = nil, nil
	}
	if err != nil {
		return []Move{{Kind: MoveKindUnknown, Token: t.contract, Note: "SafeTx data is not hex"}}
	}
	tx := safeTx{safe: common.HexToAddress(t.contract), to: addr("to"), value: num("value"), data: data,
		operation: num("operation"), gasPrice: num("gasPrice"), gasToken: addr("gasToken"), refund: addr("refundReceiver")}
	return tx.moves(0)
}

// moves is what the Safe transaction does: one move naming the call, then
// what its calldata moves (a call) or an unknown move (a delegatecall).
func (tx safeTx) moves(depth int) []Move {
	head := Move{Kind: MoveKindSafeCall, Token: tx.safe.Hex(), From: tx.safe.Hex(), To: tx.to.Hex(), Amount: tx.value.String(),
		Note: fmt.Sprintf("the Safe calls %s with %d bytes of calldata, sending %s wei of its ETH", tx.to.Hex(), len(tx.data), tx.value)}
	if tx.gasPrice.Sign() != 0 {
		token := "ETH"
		if tx.gasToken != (common.Address{}) {
			token = "token " + tx.gasToken.Hex()
		}
		head.Note += fmt.Sprintf("; refunds gas at %s per unit in %s to %s", tx.gasPrice, token, refundTo(tx))
		head.refund = true
	}
	switch {
	case tx.operation.Sign() == 0:
	case tx.operation.Cmp(big.NewInt(1)) == 0:
		head.Kind, head.Risk = MoveKindSafeDelegatecall, RiskHigh
		head.Note = fmt.Sprintf("DELEGATECALL: the code at %s runs as the Safe itself, with its storage and every asset it holds "+
			"(it can change owners or modules and move anything); %d bytes of calldata, %s wei", tx.to.Hex(), len(tx.data), tx.value)
		return []Move{head, {Kind: MoveKindUnknown, Token: tx.to.Hex(), From: tx.safe.Hex(),
			Note: "delegatecall: what the Safe moves depends on the target's code, not on this calldata"}}
	default:
		return []Move{{Kind: MoveKindUnknown, Token: tx.safe.Hex(), Note: "Safe operation " + tx.operation.String() + " is neither call (0) nor delegatecall (1)"}}
	}
	out := []Move{head}
	if depth >= 4 {
		return append(out, Move{Kind: MoveKindUnknown, Token: tx.to.Hex(), Note: "Safe calls nested more than 4 deep"})
	}
	for _, mv := range decodeCalldata(tx.to, tx.data, depth+1) {
		if mv.From == "" {
			mv.From = tx.safe.Hex() // the Safe is who sends, approves or permits
		}
		out = append(out, mv)
	}
	return out
}

func refundTo(tx safeTx) string {
	if tx.refund == (common.Address{}) {
		return "the executor (tx.origin)"
	}
	return tx.refund.Hex()
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// rankMoves numbers the moves in the order they were signed (Index, when
// there is more than one) and puts those of high risk first: unlimited
// amounts, operator approvals, delegatecalls and undecoded calldata. A
// batch of 60 permits shows the one unlimited entry on top, not last.
func rankMoves(moves []Move) []Move {
	for i := range moves {
		m := &moves[i]
		if len(moves) > 1 {
			m.Index = i + 1
		}
		switch {
		case m.Risk != "":
		case m.Kind == MoveKindUnknown,
			m.Kind == "setApprovalForAll" && m.Approved != nil && *m.Approved,
			m.Amount == maxUint256.String(),
			isUnlimited160(m):
			m.Risk = RiskHigh
		}
	}
	sort.SliceStable(moves, func(i, j int) bool { return moves[i].Risk == RiskHigh && moves[j].Risk != RiskHigh })
	return moves
}

// isUnlimited160 is Permit2's "unlimited": an allowance of 2^160-1.
func isUnlimited160(m *Move) bool {
	return strings.HasPrefix(m.Kind, "permit2.") && m.Amount == maxUint160.String()
}

var maxUint160 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1))
