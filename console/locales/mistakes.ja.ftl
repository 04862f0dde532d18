## A mistake in the data or the schema, said in Japanese by its code (`mistake-<code>`,
## the codes of `masterctl validate --format json`) and its hint by its kind
## (`hint-<kind>`) or its code (`hint-code-<code>`). Their values are the diagnostic's:
## `found`, `field`, `table`, and what its code puts in (`case`, `limit`, `target`…).
## A sentence whose value a diagnostic lacks is said in English, as it was written.

mistake-schema-syntax = スキーマまたは masterctl.toml の書き方に誤りがあります
mistake-unknown-option = スキーマに存在しない設定があります
mistake-unknown-type = スキーマに存在しない型があります
mistake-invalid-name = 名前に使えない文字があります（英小文字・数字・_ のみ）
mistake-duplicate-name = 同じ名前が二つあります
mistake-invalid-reference = スキーマが存在しないテーブルか列を参照しています
mistake-invalid-option = スキーマの設定値が成り立ちません
mistake-unreadable-file = ファイルを読めません（壊れている、暗号化されている、または表計算のファイルではありません）
mistake-invalid-utf8 = CSV ファイルが UTF-8 ではありません
mistake-decoded = UTF-8 ではない CSV ファイルを、保存された文字コードで読みました
mistake-duplicate-table = 同じテーブルが二つのシートかファイルから読まれています
mistake-unmapped-sheet = どのテーブルにも対応しないシートかファイルです
mistake-unread = 読まない設定のファイルとシートです
mistake-hidden-sheet = 非表示のシートから読み込みました
mistake-nothing-matched = どのテーブルに対応するものもありません
mistake-missing-header = 見出し行がありません
mistake-unknown-column = { $case ->
    [name] 見出しの「{ $name }」はこのテーブルの列ではありません
   *[stray] 値のある列に見出しがありません
}
mistake-missing-column = 見出しに列「{ $name }」がありません
mistake-duplicate-column = 列「{ $name }」が見出しに二度あります
mistake-error-cell = セルがエラー値です
mistake-formula-without-value = 数式の計算結果がファイルに保存されていません
mistake-type-error = 「{ $found }」は { $field } の型（{ $type }）として読めません
mistake-required = { $case ->
    [no-record] { $table } にレコードがありません
    [in-case] { $row_case } の行では { $field } は必須ですが、値がありません
   *[empty] { $field } は必須ですが、値がありません
}
mistake-other-case = { $field } は { $cases } の行だけの値ですが、この行は { $row_case } です
mistake-enum-value = 「{ $found }」は { $field } の値ではありません（{ $values }）
mistake-out-of-range = { $case ->
    [below] { $found } は最小値 { $limit } を下回っています
   *[above] { $found } は最大値 { $limit } を超えています
}
mistake-length = { $case ->
    [short] { $field } は { $min } 文字以上ですが、{ $length } 文字です
   *[long] { $field } は { $max } 文字以内ですが、{ $length } 文字あります
}
mistake-pattern = 「{ $found }」は { $field } のパターン { $pattern } に合いません
mistake-unique = { $case ->
    [row] 行 { $row } の { $field } がすでにこの値です
   *[other] { $field } は重複できませんが、{ $found } は { $first } にもあります
}
mistake-duplicate-key = { $case ->
    [second-record] { $table } のレコードは一つだけです
   *[key] 主キー { $found } の行が二つあります（最初の行: { $first }）
}
mistake-foreign-key = { $target } に { $column } が { $found } の行がありません
mistake-unchecked-reference = 参照先のテーブル { $target } が入力にないため、{ $field } の参照を確かめられませんでした
mistake-placeholder = 翻訳のプレースホルダーかタグが原文と合いません
mistake-invisible-character = 見えない文字が含まれています
mistake-control-character = { $at } 文字目に制御文字 { $char } があります
mistake-plural-forms = 複数形が言語の規則と合いません
mistake-message-syntax = { $case ->
    [nesting] 選択（plural・select）の入れ子が { $limit } 段を超えています
   *[other] メッセージの書き方に誤りがあります
}
mistake-unknown-unit = 翻訳ファイルに、この版にない単位があります
mistake-duplicate-unit = 翻訳ファイルに同じ単位が二つあります
mistake-exchange-syntax = 翻訳ファイルの書き方に誤りがあります
mistake-wrong-language = 翻訳ファイルの言語が違います
mistake-source-changed = 訳した後で原文が変わりました
mistake-export-conflict = { $case ->
    [kept] このワークブックで「{ $theirs }」に変えられましたが、書き出しの後に { $branch } でも「{ $base }」から「{ $ours }」に変わっていました{ $named ->
        [yes] （{ $who }、{ $when }）
       *[no] {""}
    }。{ $branch } の「{ $ours }」を残しました
   *[refused] このワークブックで「{ $theirs }」に変えられましたが、書き出しの後に { $branch } でも「{ $base }」から「{ $ours }」に変わっています{ $named ->
        [yes] （{ $who }、{ $when }）
       *[no] {""}
    }
}
mistake-export-record = ワークブックの書き出し記録が読めないか、合いません
mistake-bad-font = フォントファイルを読めません
mistake-missing-glyph = フォントにない文字があります
mistake-glossary = 用語集の訳語が使われていません
mistake-inconsistent = 同じ原文に違う訳があります

## Hints, by their kind

hint-full-width = 全角で書かれています。半角で「{ $write }」と書いてください
hint-thousands = 桁区切りのカンマを取ってください
hint-fraction = 小数があります。この列は整数です
hint-percent = 百分率は小数で書いてください（45% は 0.45）
hint-odd-parts = キーと値が交互に並びますが、{ $parts } 個に分かれています。値のないキーがあります
hint-no-key-separator = 「{ $part }」のキーと値の間に「{ $separator }」がありません
hint-half-entry = キーか値のない項目があります
hint-part = 「{ $part }」が読めません
hint-key-twice = キー { $key } が二度あります
hint-empty-element = リストに空の要素があります
hint-record-parts = 「{ $record }」は { $layout } の { $want } 個に分けて書きますが、このセルは { $have } 個です
hint-record-parts-by-case = 「{ $record }」は { $layout } と書き、{ $unions } はケース名の後にそのケースの部分が続きますが、このセルの { $have } 個ではそうなりません
hint-record-empty-part = 「{ $field }」が空です
hint-union-case = 「{ $part }」は { $cases } のどれでもありません
hint-records-run-on = 「{ $record }」は { $want } 個ずつ並びますが、このセルの { $have } 個はその倍数ではありません
hint-did-you-mean = 「{ $similar }」のことですか？
hint-comment = 見出しを列の名前にするか、# で始めてコメントにしてください
hint-also-in = { $column } 列にもあります。一つにしてください
hint-optional-column = 列を足してください。値は空のままでかまいません
hint-one-record = 行を一つにするか、テーブルを list か keyed にしてください
hint-first-row = 最初の行は { $first } です
hint-case-fill = { $field } を埋めるか、行の種類を変えてください
hint-keep-theirs = ブランチの値を残して残りを取り込むか、もう一度書き出して新しいワークブックでこのセルを直してください

## Hints, by the mistake's code

hint-code-other-case = セルを空にするか、行の種類を直してください
hint-code-foreign-key = { $target } に行を足すか、この値を直してください
hint-code-error-cell = 数式（か、その参照先のセル）を直して値が出るようにしてください
hint-code-formula-without-value = 表計算ソフトで開いて再計算し、保存し直してください
hint-source-text = 原文：{ $source }
expected-translation-of = 「{ $source }」の訳
expected-at-most = { $max } 文字以内（フィールドの max_length）
expected-glossary = { $terms }
expected-as-elsewhere = 「{ $other }」（ほかの箇所と同じ訳）
hint-code-unchecked-reference = { $target } のワークブックも一緒に入力すると確かめられます
hint-code-invalid-utf8 = CSV を UTF-8 で保存し直してください（Excel：「CSV UTF-8 (コンマ区切り)」）

## Notes on a value that will do

note-edge-spaces = 前後に空白があります（空白はそのまま残ります）

## Why a browser edit cannot be made: where (`refusal-place-…`), then why

refusal-place-cell = { $table } の { $key } の { $field }
refusal-place-row = { $table } の { $key }
refusal-place-column = { $table } の { $field }
refusal-place-table = { $table }
refusal-changed-now = { $place } はその後変更されました{ $named ->
    [yes] （{ $who }、{ $when }、「{ $subject }」）
   *[no] {""}
}。今の値は「{ $now }」です
refusal-changed = { $place } はその後変更されました{ $named ->
    [yes] （{ $who }、{ $when }、「{ $subject }」）
   *[no] {""}
}
refusal-row-gone = { $place }：行はもうありません{ $named ->
    [yes] （{ $who }、{ $when }、「{ $subject }」）
   *[no] {""}
}
refusal-unreadable = { $place }：「{ $text }」はこの列の値として読めません
refusal-key-taken = { $place }：キー { $taken } の行がほかにあります
refusal-no-field = { $place }：そのような列はありません
refusal-no-table = { $place }：そのようなテーブルはありません
refusal-no-key = { $place }：このテーブルにはキーがないため、行を編集できません

## What the store refuses, said from its values (`store-…`: `console/src/failed.rs`)

store-no-table = { $at } にテーブル { $table } はありません
store-no-field = { $table } に列 { $field } はありません
store-no-row = { $at } の { $table } に行 [{ $key }] はありません
store-nothing-to-edit = { $branch } への編集がありません。セルを変えるか、行を追加か削除してください
store-nothing-to-propose = { $branch } には地域にない変更がなく、提案するものがありません
store-nothing-to-export = { $branch } にはテーブルがなく、書き出すものがありません
store-work-branch-exists = 作業ブランチ { $branch } はすでにあります
store-tag-exists = タグ { $tag } はすでにあります。バージョンは一つのコミットをずっと指します
store-bad-version = 「{ $version }」はバージョン名になりません（英数字と . - _ +、英数字で始まる：1.4、2026-12-event）
store-not-in-history = { $revision } は { $branch } の履歴のコミットではありません
store-in-progress = { $branch } の{ $kind ->
    [rebase] リベース
    [merge] マージ
   *[other] { $kind }
}が途中で止まっています

# An upload refused (the English is the console's own sentence).
upload-not-a-workbook = 「{ $name }」は取り込める種類のファイルではありません（インポートにはワークブック、CSV かタブ区切りテキスト、翻訳には XLIFF・PO・CSV）
upload-not-a-zip = 「{ $name }」は読める zip ファイルではありません
upload-not-a-workbook-in = 「{ $zip }」の中の「{ $entry }」はインポートできる種類のファイルではありません（ワークブック、CSV かタブ区切りテキスト）
upload-too-large = 「{ $name }」は { $most } MiB を超えています
upload-all-too-large = アップロード全体が { $most } MiB を超えています
upload-too-many = 一度にアップロードできるのは { $most } ファイルまでです
upload-twice = 「{ $name }」という名前のファイルが二つあります
upload-empty = ファイルがアップロードされていません
upload-unknown = アップロード { $id } は残っていません（アップロードは一週間保存されます）
