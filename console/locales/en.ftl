# The console's words in English. Each page's words are grouped under its name.

## Every page
sign-out = Sign out
signed-in-as = { $name } ({ $role })
language = Language
regions = Regions
role-viewer = viewer
role-editor = editor
role-maintainer = maintainer

## Regions (/)
regions-title = Regions and work branches
audit-says = : who did what, when and from where.
audit-log = Audit log
merges-proposed = Merges proposed
branch = branch
last-change = last change
takes-from = takes from
translated = translated
nothing-imported = nothing imported yet
tables = tables
history = history
releases = releases

## Tables (/tables)
tables-of = Tables of { $branch }
as-of-commit = As of commit
download-workbooks = Download as workbooks
table = table
what-it-is = what it is
kind = kind
fields = fields
download-explained = : one workbook per file planners keep, each table on its sheet, the header frozen, each field's description as its header's note, drop-down lists for an enum's values and a reference to a table of the same workbook. Edit them and
upload-again = upload them again
kept-meanwhile = : what changed on the branch meanwhile is kept.
kind-table = table
kind-singleton = singleton
kind-list = list
kept-in = planners keep it in

## History (/history)
history-of = History of { $branch }
when = when
who = who
what = what
commit = commit
undo = undo
older = Older commits
tables-link = Tables
import-into = Import workbooks into { $branch }
rebase = Rebase
translations = Translations
merge-into = Merge into { $branch }
older-commits-here = Older commits.
the-newest = The newest
merged-from = merged: { $branch }
blame-table = Who changed a row: table
blame-key = key
blame = Blame
done-reverted = The commit was taken back: the newest commit undoes it.
done-imported = Imported: the newest commit holds the upload.
done-unchanged = Nothing was imported: the branch holds this data already.
done-rebase = Rebased: the newest commit takes what the branch follows.
done-merge = Merged: the newest commit takes the work branch in.
done-edited = Committed: the newest commit holds your edits.
on-branch = on { $branch }
edits-waiting = You have { $count } { $count ->
    [one] edit
   *[other] edits
} waiting on { $branch }:
review-and-commit = review and commit them
full-stop = .
also-editing = Also editing { $table }:
editor-edits = { $who } ({ $count } { $count ->
    [one] edit
   *[other] edits
})
add-row = Add a row
search-every-column = Search every column
show = Show
show-every-row = Show every row
no-rows = No rows
rows-of = Rows { $from }–{ $to } of { $matched }
matching-of = {" "}matching, of { $total }
earlier-rows = Earlier rows
later-rows = Later rows
key = key
filter = filter
filter-of = Filter { $field }
link-to-row = A link to this row
who-changed-row = Who changed this row's cells
blame-link = blame
edit-row = Edit this row
edit-link = edit
your-edit = your edit, not committed
new-row = New row
new-row-of = New row of { $table }
new-row-copied = New row of { $table }, a copy of { $row }
edit-of = Edit { $table }
caught-when-second-commits = A cell changed by two people is caught when the second commits.
changes-go-into = Changes go into your edits of { $branch }; nothing is written until you
checked-as-typed = Each value is checked as you type.
needed = needed
a-row-of = a row of { $table }
keep-changes = Keep these changes
add-the-row = Add the row
copy-into-new-row = Copy into a new row
delete-row = Delete this row
empty-choice = (empty)
your-edits = Your edits
your-edits-of = Your edits of { $branch }
no-edits-waiting = You have no edits waiting on { $branch }.
open-a-table = Open a table and edit a row.
edits-refused = Some edits cannot be made as they are (marked below). Nothing was written, and your edits are kept: keep your value over a colleague's, change it, or remove the edit.
edits-rejected = { $branch } with these edits would not be valid data. Nothing was written; your edits are kept. Change the values named:
edits-unchanged = { $branch } holds these values already: committing writes nothing.
row = row
field = field
change = change
row-deleted = row deleted
keep-mine = Keep mine over theirs
remove = Remove
what-committing-changes = What committing changes
rows-added = rows added
rows-removed = rows removed
cells-changed = cells changed
texts-changed = texts changed
every-change = Every change, cell by cell
committing = Committing…
message = Message
what-the-change-is-for = what the change is for
commit-as = Commit as { $name }
throw-away = Throw every edit away
checking-upload = Checking the upload
reading-every-sheet = Reading and validating every sheet
working = Working
change-being-made = The change is being made
done-of = { $done } of { $total }
shows-result-when-done = This page shows the result when the work is done.
blame-and-history = Blame and history
value = value
before = before
changed-by = changed by
new-value = (new)
via = via { $subject }
row-history = History of this row
no-commit-changed-it = No commit of { $branch } changed it.
changed = changed
none-value = (none)
gone-value = (gone)
fifty-newest = The 50 newest; older ones are in the branch's history.
audit-explained = What was done, by whom, when and from where — kept in the repository, so every clone that pulls has it. Newest first.
nothing-recorded = Nothing recorded yet.
which = which
words = words
from-where = from where
older-entries = Older entries are in the repository
