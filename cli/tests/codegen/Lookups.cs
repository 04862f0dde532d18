// The generated C# API by name, on the sample game's build (args[0]), in English: texts
// with the region's fallbacks, enums, lists, lookups by key and index, references,
// reverse lookups to typed sources, groups, weighted draws and the matrix. Prints one
// line per check; the test compares them.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using MastersData;

public static class Lookups
{
    public static void Main(string[] args)
    {
        Masters m = Masters.OpenDirectory(args[0], "en");
        Item sword = m.Item.Get(1).Value;
        Item steel = m.Item.Get(2).Value;
        Console.WriteLine(string.Join(",", new[]
        {
            sword.Name, steel.Name, sword.Rarity.ToText(), string.Join("|", sword.Tags),
            m.ShopItem.Get(1, 5).Value.Stock.ToString(), sword.CategoryIdRow.Value.Name,
            m.Item.Get(999).HasValue.ToString(), m.ShopItem.GetByText("1|5").Value.ItemId.ToString(),
        }));

        // Reverse lookup, to typed source rows.
        var sources = new List<string>();
        foreach (ItemSourcesRow r in sword.ItemSources)
        {
            IItemSourcesSource source = r.Source;
            sources.Add(source is QuestDrop ? "drop of quest " + r.SourceKey + " " + ((QuestDrop)source).QuestId
                : source is ShopItem ? "offer of shop " + r.SourceKey + " " + ((ShopItem)source).ShopId
                : "?");
        }
        Console.WriteLine(string.Join(",", sources));

        // Group, index (equality and range), weighted draws, matrix.
        Console.WriteLine(string.Join(",", m.QuestsByChapter(1).Select(q => q.Code)) + " "
            + string.Join(",", m.Item.ByCategoryId(1).Select(i => i.Id)));
        var ranged = m.Item.ByCategoryIdRange(2, 3);
        int all = m.Item.Count(i => i.CategoryId >= 2 && i.CategoryId <= 3);
        bool ordered = ranged.Select((i, k) => i.CategoryId >= 2 && i.CategoryId <= 3
            && (k == 0 || ranged[k - 1].CategoryId <= i.CategoryId)).All(ok => ok);
        Console.WriteLine((ranged.Count == all && all > 0 && ordered) + " "
            + string.Join(",", m.Item.ByCategoryIdRange(null, 1).Select(i => i.Id)) + " "
            + m.Item.ByCategoryIdRange(9, null).Count);
        Console.WriteLine(m.DropDraw.Draw(101, 0).Value.ItemId + " " + m.DropDraw.Draw(101, 0.99).Value.ItemId
            + " " + m.DropDraw.Draw(999, 0.5).HasValue);
        Console.WriteLine(m.ElementMatrix(ElementAffinityAttacker.Fire, ElementAffinityDefender.Water) + " "
            + m.ElementMatrix(ElementAffinityAttacker.Fire, ElementAffinityDefender.Fire));
        Damaged(args[0]);
    }

    // A damaged file is a MastersException when the build opens, never another exception,
    // then or later: every cut of item.bin, and every byte of it changed, then every
    // property of every row read.
    static void Damaged(string dir)
    {
        string itemPath = "client/tables/item.bin";
        byte[] whole = File.ReadAllBytes(Path.Combine(dir, itemPath));
        Func<byte[], Masters> open = item => Masters.Open(
            path => path == itemPath ? item : File.ReadAllBytes(Path.Combine(dir, path)), "en");
        var wrong = new List<string>();
        for (int cut = 0; cut < whole.Length; cut++)
        {
            var item = new byte[cut];
            Array.Copy(whole, item, cut);
            try
            {
                open(item);
                wrong.Add("cut at " + cut + " opened");
            }
            catch (MastersException)
            {
            }
            catch (Exception e)
            {
                wrong.Add("cut at " + cut + ": " + e.GetType().Name);
            }
        }
        int opened = 0;
        for (int at = 0; at < whole.Length; at++)
        {
            var item = (byte[])whole.Clone();
            item[at] ^= 0xA5;
            Masters m;
            try
            {
                m = open(item);
            }
            catch (MastersException)
            {
                continue;
            }
            catch (Exception e)
            {
                wrong.Add("byte " + at + ": " + e.GetType().Name);
                continue;
            }
            opened++;
            try
            {
                foreach (Item row in m.Item)
                {
                    foreach (var property in typeof(Item).GetProperties())
                    {
                        property.GetValue(row, null);
                    }
                    m.Item.Get(row.Id);
                    m.Item.ByCategoryId(row.CategoryId);
                }
            }
            catch (Exception e)
            {
                wrong.Add("byte " + at + " changed, reading: " + (e.InnerException ?? e).ToString());
            }
        }
        Console.WriteLine("damaged: " + (wrong.Count == 0 ? "ok" : string.Join("; ", wrong)) + (opened > 0 ? "" : " (none opened)"));
    }
}
