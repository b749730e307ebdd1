package signer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// FuzzTransaction: any eth_signTransaction object either is refused with a
// *Refusal or yields a raw transaction that decodes, is signed by the key,
// and carries exactly the chain, recipient and value that policy saw.
func FuzzTransaction(f *testing.F) {
	for _, s := range []string{
		`{"from":"` + addr4646 + `","to":"0x3535353535353535353535353535353535353535","nonce":"0x9","gasPrice":"0x4a817c800","gas":"0x5208","value":"0xde0b6b3a7640000","chainId":"0x1"}`,
		`{"from":"` + addr4646 + `","to":"0x3535353535353535353535353535353535353535","nonce":"0x1","gas":"0x5208","maxFeePerGas":"0x6fc23ac00","maxPriorityFeePerGas":"0x77359400","value":"0x1","chainId":"0x1","type":"0x2","data":"0xa9059cbb"}`,
		`{"from":"` + addr4646 + `","nonce":"0x0","gas":"0x5208","gasPrice":"0x1","data":"0x6000","chainId":"0x1","accessList":[]}`,
		`{"from":"` + addr4646 + `","to":null,"input":"0x","data":"0x","chainId":"0x1"}`,
		`{}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	h := policyHarness(f, anyPolicy())
	f.Fuzz(func(t *testing.T, obj []byte) {
		params, _ := json.Marshal([]json.RawMessage{obj})
		if !json.Valid(obj) {
			params = append([]byte(`[`), append(obj, ']')...)
		}
		op, err := safeDecode(decodeTx, h.svc, h.caller, params)
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("non-refusal error: %v", err)
			}
			return
		}
		k, err := h.store.load(op.keyRef)
		if err != nil {
			t.Fatal(err)
		}
		res, err := op.sign(k, nil)
		if err != nil {
			t.Fatalf("sign after successful decode: %v", err)
		}
		raw, err := hexutil.Decode(res.(string))
		if err != nil {
			t.Fatal(err)
		}
		var tx types.Transaction
		if err := tx.UnmarshalBinary(raw); err != nil {
			t.Fatalf("signed tx does not decode: %v", err)
		}
		from, err := types.Sender(types.NewLondonSigner(tx.ChainId()), &tx)
		if err != nil || from.Hex() != addr4646 {
			t.Fatalf("sender %v %v", from, err)
		}
		if tx.ChainId().String() != op.ChainID || tx.Value().String() != op.Value {
			t.Fatalf("signed chain/value %v/%v, policy saw %s/%s", tx.ChainId(), tx.Value(), op.ChainID, op.Value)
		}
		if (tx.To() == nil) != op.Create || (tx.To() != nil && tx.To().Hex() != op.To) {
			t.Fatalf("signed recipient %v, policy saw %q create=%v", tx.To(), op.To, op.Create)
		}
	})
}

func anyPolicy() *config.Policy {
	return &config.Policy{Name: "any", Key: "main", Operations: []string{"eth_signTransaction", "eth_signTypedData_v4"},
		ChainIDs: []int64{1}, Approval: "never"}
}

// FuzzTypedData: any typed-data input is refused or hashes to the digest
// go-ethereum's apitypes computes, with the domain shown to policy matching
// what was hashed.
func FuzzTypedData(f *testing.F) {
	f.Add([]byte(mailTypedData))
	f.Add([]byte(`{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"A":[{"name":"x","type":"uint8"}]},"primaryType":"A","domain":{"chainId":1},"message":{"x":300}}`))
	f.Add([]byte(`{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],"A":[{"name":"a","type":"A[]"}]},"primaryType":"A","domain":{"chainId":1},"message":{"a":[{"a":[]}]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(safeTypedJSON(safeCases()[1])))
	h := policyHarness(f, anyPolicy())
	f.Fuzz(func(t *testing.T, td []byte) {
		params, _ := json.Marshal([]any{addr4646, string(td)})
		op, err := safeDecode(decodeTyped, h.svc, h.caller, params)
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("non-refusal error: %v", err)
			}
			return
		}
		var parsed apitypes.TypedData
		if err := json.Unmarshal(td, &parsed); err != nil {
			t.Fatalf("decoder accepted what does not parse: %v", err)
		}
		if parsed.Domain.ChainId == nil {
			t.Fatal("accepted typed data without chainId")
		}
		if op.Domain == nil || op.Domain.Name != Escape(parsed.Domain.Name) {
			t.Fatalf("domain shown %+v, hashed %+v", op.Domain, parsed.Domain)
		}
	})
}

// FuzzStrictJSON: checkJSON never panics; what it accepts is valid JSON in
// which no object holds two keys equal under case folding (checked here
// pairwise with strings.EqualFold, independently of foldKey); what
// strictUnmarshal accepts into the transaction object has only exact
// field names.
func FuzzStrictJSON(f *testing.F) {
	for _, s := range []string{`{"chainId":"0x1","chainid":"0x5"}`, `{"a":{"b":1,"B":2}}`, `[{"x":1},{"x":1}]`,
		`{"k":1,"\u212a":2}`, `"\ud800"`, `"\ud83d\ude80"`, `{"from":"0x00","ChainId":"0x1"}`, `{"a":[{"a":{"a":[]}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if checkJSON(raw) != nil {
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var walk func(any)
		walk = func(x any) {
			switch y := x.(type) {
			case map[string]any:
				keys := make([]string, 0, len(y))
				for k, e := range y {
					keys = append(keys, k)
					walk(e)
				}
				for i := range keys {
					for j := i + 1; j < len(keys); j++ {
						if strings.EqualFold(keys[i], keys[j]) {
							t.Fatalf("accepted fold-equal keys %q %q", keys[i], keys[j])
						}
					}
				}
			case []any:
				for _, e := range y {
					walk(e)
				}
			}
		}
		walk(v)
		var a txArgs
		if strictUnmarshal(raw, &a, "tx") == nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) == nil {
				fields := map[string]reflect.Type{}
				structFields(reflect.TypeOf(a), fields)
				for k := range m {
					if _, ok := fields[k]; !ok {
						t.Fatalf("accepted key %q that is not a field name", k)
					}
				}
			}
		}
	})
}

// FuzzCalldata: decoding never panics; every decoded move names a valid
// token address and, unless unknown, decimal amounts that parse; calldata
// of a known selector whose arguments are cut or padded is "unknown".
func FuzzCalldata(f *testing.F) {
	f.Add(common.FromHex(transferCalldata(payee, big.NewInt(5))))
	f.Add(common.FromHex("0xac9650d8" + strings.Repeat("00", 64)))
	f.Add([]byte{0x5a, 0xe4, 0x01, 0xdc})
	f.Add([]byte{})
	for op := uint8(0); op < 3; op++ { // Safe execTransaction: call, delegatecall, neither
		in, _ := safeABI().Methods["execTransaction"].Inputs.Pack(common.HexToAddress(usdc), big.NewInt(1),
			common.FromHex(transferCalldata(payee, big.NewInt(5))), op, big.NewInt(0), big.NewInt(0), big.NewInt(0),
			common.Address{}, common.Address{}, []byte{})
		f.Add(append(safeABI().Methods["execTransaction"].ID, in...))
	}
	tok := common.HexToAddress(usdc)
	f.Fuzz(func(t *testing.T, data []byte) {
		moves := decodeCalldata(tok, data, 0)
		// A delegatecall is high risk and what it moves is never taken
		// from its calldata; ranking keeps every move.
		for i, m := range moves {
			if m.Kind == MoveKindSafeDelegatecall && (m.Risk != RiskHigh || i+1 >= len(moves) || moves[i+1].Kind != MoveKindUnknown) {
				t.Fatalf("delegatecall not flagged: %+v", moves)
			}
		}
		if n := len(moves); len(rankMoves(append([]Move(nil), moves...))) != n {
			t.Fatal("rankMoves lost moves")
		}
		for _, m := range moves {
			if !common.IsHexAddress(m.Token) {
				t.Fatalf("move without token: %+v", m)
			}
			if m.Kind == MoveKindUnknown {
				continue
			}
			if m.Amount != "" {
				if _, ok := new(big.Int).SetString(m.Amount, 10); !ok {
					t.Fatalf("amount %q", m.Amount)
				}
			}
			if m.To != "" && !common.IsHexAddress(m.To) {
				t.Fatalf("to %q", m.To)
			}
		}
	})
}
