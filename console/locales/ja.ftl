# コンソールの言葉（日本語）。ページごとにまとめてある。

## すべてのページ
sign-out = サインアウト
signed-in-as = { $name }（{ $role }）
language = 言語
regions = リージョン
role-viewer = 閲覧者
role-editor = 編集者
role-maintainer = 管理者

## リージョン (/)
regions-title = リージョンと作業ブランチ
audit-says = ：だれが、いつ、どこから、何をしたか。
audit-log = 監査ログ
merges-proposed = 提案されたマージ
branch = ブランチ
last-change = 最後の変更
takes-from = 取り込み元
translated = 翻訳済み
nothing-imported = まだ何もインポートされていません
tables = テーブル
history = 履歴
releases = リリース

## テーブル (/tables)
tables-of = { $branch } のテーブル
as-of-commit = 時点のコミット
download-workbooks = ワークブックとしてダウンロード
table = テーブル
what-it-is = 内容
kind = 種類
fields = フィールド数
download-explained = ：企画者が管理するファイルごとに 1 つのワークブック。各テーブルは自分のシートに、見出しは固定、各フィールドの説明は見出しのメモに、列挙値と同じワークブック内のテーブルへの参照はドロップダウンリストになります。編集したら
upload-again = もう一度アップロード
kept-meanwhile = してください。その間にブランチで変わった内容は保たれます。
kind-table = テーブル
kind-singleton = 単一行
kind-list = リスト
kept-in = 企画者の管理場所

## 履歴 (/history)
history-of = { $branch } の履歴
when = 日時
who = 担当者
what = 内容
commit = コミット
undo = 取り消す
older = さらに古いコミット
tables-link = テーブル
import-into = { $branch } にワークブックをインポート
rebase = リベース
translations = 翻訳
merge-into = { $branch } にマージ
older-commits-here = 古いコミット。
the-newest = 最新へ
merged-from = マージ元：{ $branch }
blame-table = 行を変えた人：テーブル
blame-key = キー
blame = 調べる
done-reverted = コミットを取り消しました：最新のコミットがそれを元に戻しています。
done-imported = インポートしました：最新のコミットにアップロードが入っています。
done-unchanged = 何もインポートしていません：ブランチにはすでにこのデータがあります。
done-rebase = リベースしました：最新のコミットが取り込み元の変更を取り込んでいます。
done-merge = マージしました：最新のコミットが作業ブランチを取り込んでいます。
done-edited = コミットしました：最新のコミットにあなたの編集が入っています。
on-branch = （{ $branch }）
edits-waiting = { $branch } に未コミットの編集が { $count } 件あります：
review-and-commit = 確認してコミットする
full-stop = 。
also-editing = { $table } をほかにも編集中：
editor-edits = { $who }（{ $count } 件）
add-row = 行を追加
search-every-column = すべての列を検索
show = 表示
show-every-row = すべての行を表示
no-rows = 行がありません
rows-of = { $matched } 行中 { $from }–{ $to } 行目
matching-of = （該当、全 { $total } 行）
earlier-rows = 前の行
later-rows = 次の行
key = キー
filter = 絞り込み
filter-of = { $field } で絞り込む
link-to-row = この行へのリンク
who-changed-row = この行のセルを変えた人
blame-link = 変更者
edit-row = この行を編集
edit-link = 編集
your-edit = あなたの編集（未コミット）
