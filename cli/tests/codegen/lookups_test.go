package masters

// The generated Go API by name, on the sample game's build (MASTERS_BUILD), in English:
// texts with the region's fallbacks, enums, lists, lookups by key and index, references,
// reverse lookups to typed sources, groups, weighted draws and the matrix.

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestLookupsByName(t *testing.T) {
	m, err := OpenDir(os.Getenv("MASTERS_BUILD"), "en")
	if err != nil {
		t.Fatal(err)
	}
	sword, ok := m.Item.Get(1)
	steel, ok2 := m.Item.Get(2)
	if !ok || !ok2 {
		t.Fatal("items 1 and 2")
	}
	if sword.Name() != "Iron Sword" || steel.Name() != "鋼の剣" {
		t.Errorf("texts: %q %q", sword.Name(), steel.Name())
	}
	if sword.Rarity() != ItemRarityCommon || sword.Rarity().String() != "common" {
		t.Errorf("rarity %v", sword.Rarity())
	}
	if got := strings.Join(sword.Tags(), "|"); got != "sword|starter" {
		t.Errorf("tags %q", got)
	}
	if category, ok := sword.CategoryIDRow(); !ok || category.Name() != "Weapons" {
		t.Errorf("category %v", category.Name())
	}
	if offer, ok := m.ShopItem.Get(1, 5); !ok || offer.Stock() == nil || *offer.Stock() != 99 {
		t.Errorf("shop_item (1, 5)")
	}
	if _, ok := m.Item.Get(999); ok {
		t.Error("item 999")
	}
	if row, ok := m.ShopItem.GetByText("1|5"); !ok || row.ItemID() != 5 {
		t.Error("shop_item by text")
	}

	// Reverse lookup, to typed source rows.
	var sources []string
	for _, r := range sword.ItemSources() {
		switch source := r.Source().(type) {
		case QuestDrop:
			sources = append(sources, "drop of quest "+r.SourceKey()+" "+itoa(source.QuestID()))
		case ShopItem:
			sources = append(sources, "offer of shop "+r.SourceKey()+" "+itoa(source.ShopID()))
		default:
			t.Errorf("source %v", source)
		}
	}
	if got := strings.Join(sources, ","); got != "drop of quest 102|1 102,offer of shop 1|1 1" {
		t.Errorf("sources %q", got)
	}

	// Group, index (equality and range), weighted draws, matrix.
	var codes []string
	for _, q := range m.QuestsByChapter(1) {
		codes = append(codes, q.Code())
	}
	if got := strings.Join(codes, ","); got != "Q0101,Q0102" {
		t.Errorf("group %q", got)
	}
	var ids []string
	for _, i := range m.Item.ByCategoryID(1) {
		ids = append(ids, itoa(i.ID()))
	}
	if got := strings.Join(ids, ","); got != "1,2" {
		t.Errorf("index %q", got)
	}
	low, high := int64(2), int64(3)
	ranged := m.Item.ByCategoryIDRange(&low, &high)
	all := 0
	for _, i := range m.Item.Rows() {
		if i.CategoryID() >= 2 && i.CategoryID() <= 3 {
			all++
		}
	}
	if len(ranged) != all || all == 0 {
		t.Errorf("range: %d of %d", len(ranged), all)
	}
	for k, i := range ranged {
		if i.CategoryID() < 2 || i.CategoryID() > 3 || (k > 0 && ranged[k-1].CategoryID() > i.CategoryID()) {
			t.Errorf("range order at %d", k)
		}
	}
	if n := len(m.Item.ByCategoryIDRange(nil, &low)); n == 0 {
		t.Error("unbounded below")
	}
	nine := int64(9)
	if n := len(m.Item.ByCategoryIDRange(&nine, nil)); n != 0 {
		t.Errorf("above every category: %d", n)
	}
	first, ok := m.DropDraw.Draw(101, 0)
	last, ok2 := m.DropDraw.Draw(101, 0.99)
	if !ok || !ok2 || first.ItemID() != 5 || last.ItemID() != 6 {
		t.Errorf("draws %d %d", first.ItemID(), last.ItemID())
	}
	if _, ok := m.DropDraw.Draw(999, 0.5); ok {
		t.Error("a draw from no group")
	}
	if got := m.ElementMatrix(ElementAffinityAttackerFire, ElementAffinityDefenderWater); got != 0.5 {
		t.Errorf("matrix %v", got)
	}
	if got := m.ElementMatrix(ElementAffinityAttackerFire, ElementAffinityDefenderFire); got != 1 {
		t.Errorf("matrix default %v", got)
	}
}

func itoa(v int64) string {
	return strconv.FormatInt(v, 10)
}

// A damaged file is an *Error when the build opens, never a panic, then or later: every
// cut of item.bin, and every byte of it changed, then every field of every row read.
func TestDamagedFiles(t *testing.T) {
	dir := os.Getenv("MASTERS_BUILD")
	files := DirFiles(dir)
	whole, err := files("client/tables/item.bin")
	if err != nil {
		t.Fatal(err)
	}
	open := func(item []byte) (*Masters, error) {
		return Open(func(path string) ([]byte, error) {
			if path == "client/tables/item.bin" {
				return item, nil
			}
			return files(path)
		}, "en")
	}
	for cut := 0; cut < len(whole); cut++ {
		if _, err := open(whole[:cut]); err == nil {
			t.Errorf("item.bin cut at %d opened", cut)
		} else if _, ok := err.(*Error); !ok {
			t.Errorf("cut at %d: %T %v", cut, err, err)
		}
	}
	opened := 0
	for at := 0; at < len(whole); at++ {
		changed := append([]byte(nil), whole...)
		changed[at] ^= 0xA5
		m, err := open(changed)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Errorf("byte %d: %T %v", at, err, err)
			}
			continue
		}
		opened++
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("byte %d changed: reading panicked: %v", at, r)
				}
			}()
			for _, row := range m.Item.Rows() {
				value := reflect.ValueOf(row)
				for k := 0; k < value.NumMethod(); k++ {
					if method := value.Method(k); method.Type().NumIn() == 0 {
						method.Call(nil)
					}
				}
				m.Item.Get(row.ID())
				m.Item.ByCategoryID(row.CategoryID())
			}
		}()
	}
	if opened == 0 {
		t.Error("no changed byte left the file readable")
	}
}
