// A corpus of search-result snippets written for these tests in the shapes marketplace and shop results take
// (titles, listing lines, price guides, retailer blurbs); none is copied from a real listing. Each names the
// prices a reader would take from it: amounts as "CODE major.minor" (a range as its midpoint), shipping,
// savings, instalments, lots, "was" prices, bounds, fees and promotions left out.

struct CorpusCase {
    let title: String
    let content: String
    let url: String
    let expected: [String]

    init(_ content: String, title: String = "", url: String = "https://shop.example.com/item", _ expected: [String]) {
        self.title = title
        self.content = content
        self.url = url
        self.expected = expected
    }
}

let priceCorpus: [CorpusCase] = [
    // MARK: Currencies and separators
    CorpusCase("Sony Bravia 55\" 4K TV. Price: $1,299.99. In stock.", ["USD 1299.99"]),
    CorpusCase("Bosch dishwasher SMS4HVI33E – 1.234,56 € inkl. MwSt.", url: "https://shop.example.de/p/1", ["EUR 1234.56"]),
    CorpusCase("Nikon Z6 body only $1,299 at our store", ["USD 1299.00"]),
    CorpusCase("Espresso machine now CHF 1'250 at the Zürich branch", url: "https://shop.example.ch/x", ["CHF 1250.00"]),
    CorpusCase("Kettle, stainless, £12.50, collect in person", url: "https://market.example.co.uk/l/9", ["GBP 12.50"]),
    CorpusCase("Odkurzacz Dyson V11 – 1 299,00 zł", url: "https://sklep.example.pl/o/1", ["PLN 1299.00"]),
    CorpusCase("炊飯器 ¥12,800 送料無料", url: "https://shop.example.jp/r", ["JPY 12800"]),
    CorpusCase("Kaffebryggare Moccamaster 12.800 kr", url: "https://butik.example.se/k", ["SEK 12800.00"]),
    CorpusCase("Vintage lamp EUR 45, pick-up only", ["EUR 45.00"]),
    CorpusCase("Camera strap US$ 99 with tracking", ["USD 99.00"]),
    CorpusCase("Road bike 650 EUR, size 56", ["EUR 650.00"]),
    CorpusCase("Price USD 2,450.00 for the walnut dresser", ["USD 2450.00"]),
    CorpusCase("Stand mixer: 399,95\u{00A0}€ bei Händler X", url: "https://preise.example.de/m", ["EUR 399.95"]),
    CorpusCase("Lave-linge 549,00\u{202F}€ TTC", url: "https://boutique.example.fr/l", ["EUR 549.00"]),
    CorpusCase("Sofa 3-Sitzer 1\u{2009}299 € Abholung", url: "https://kleinanzeigen.example.de/s", ["EUR 1299.00"]),
    CorpusCase("Guitar amp €349", ["EUR 349.00"]),
    CorpusCase("Drill set € 89,90", url: "https://baumarkt.example.at/d", ["EUR 89.90"]),
    CorpusCase("Blender 79.99 USD, ships in 2 days", ["USD 79.99"]),
    CorpusCase("Handbag ₹2,499 only on this site", url: "https://shop.example.in/b", ["INR 2499.00"]),
    CorpusCase("Laptop at Rs. 54,990 with bank offers", url: "https://shop.example.in/l", ["INR 54990.00"]),
    CorpusCase("Smartphone ₹1,29,999 in the flagship store", url: "https://shop.example.in/p", ["INR 129999.00"]),
    CorpusCase("Monitor 27 inch ₩350,000", url: "https://shop.example.kr/m", ["KRW 350000"]),
    CorpusCase("Canon lens A$1,049 at the Sydney shop", ["AUD 1049.00"]),
    CorpusCase("Patio set C$799 at the Toronto store", ["CAD 799.00"]),
    CorpusCase("Snowblower $1,150 — pickup in Calgary", url: "https://annonces.example.ca/s", ["CAD 1150.00"]),
    CorpusCase("Canapé d'angle 1 150 $ à Montréal", url: "https://annonces.example.ca/c", ["CAD 1150.00"]),
    CorpusCase("BBQ grill NZ$640 on the North Shore", ["NZD 640.00"]),
    CorpusCase("Chair CA$ 120, like the photos", ["CAD 120.00"]),
    CorpusCase("Rice cooker CN¥ 499", ["CNY 499.00"]),
    CorpusCase("Skrivbord 1 499:- hos butiken", url: "https://butik.example.se/s", ["SEK 1499.00"]),
    CorpusCase("Sofa 4 500 kr, hentes i Oslo", url: "https://finn.example.no/s", ["NOK 4500.00"]),
    CorpusCase("Cykel 2.300 kr. afhentes", url: "https://dba.example.dk/c", ["DKK 2300.00"]),
    CorpusCase("Pračka 8 990 Kč, záruka 2 roky", url: "https://obchod.example.cz/p", ["CZK 8990.00"]),
    CorpusCase("Mosógép 129 990 Ft akcióban", url: "https://bolt.example.hu/m", ["HUF 129990.00"]),
    CorpusCase("Frigider 2.499 lei, livrare", url: "https://magazin.example.ro/f", ["RON 2499.00"]),
    CorpusCase("Koltuk takımı 24.999 TL", url: "https://magaza.example.com.tr/k", ["TRY 24999.00"]),
    CorpusCase("Standmixer für 249,- € bei uns", url: "https://shop.example.de/sm", ["EUR 249.00"]),
    CorpusCase("Velo CHF 480.– ab Platz Bern", url: "https://ricardo.example.ch/v", ["CHF 480.00"]),
    CorpusCase("Price: $89 USD, tax included", ["USD 89.00"]),
    CorpusCase("USD $149.00 for the pair of boots", ["USD 149.00"]),
    CorpusCase("iPad Air 64GB US $329.00", ["USD 329.00"]),
    CorpusCase("Turntable R$ 1.899,00 à vista", url: "https://loja.example.com.br/t", ["BRL 1899.00"]),
    CorpusCase("Vintage watch $2.5k firm", ["USD 2500.00"]),
    CorpusCase("Desk lamp £7", url: "https://market.example.co.uk/d", ["GBP 7.00"]),
    CorpusCase("Jacket 1.299,00 EUR", ["EUR 1299.00"]),
    CorpusCase("Headphones for 129 euros at the market", ["EUR 129.00"]),
    CorpusCase("Router 3,980円 (税込)", url: "https://shop.example.jp/rt", ["JPY 3980"]),
    CorpusCase("Sold for $120.00 on Nov 2", ["USD 120.00"]),
    CorpusCase("Buy It Now $64.95", ["USD 64.95"]),
    CorpusCase("Used dryer, asking 300 dollars", ["USD 300.00"]),

    // MARK: Shipping, postage, delivery
    CorpusCase("Sony WH-1000XM4 $179.99 + $9.99 shipping", ["USD 179.99"]),
    CorpusCase("Kettle £25.00. Postage: £3.99", url: "https://market.example.co.uk/k", ["GBP 25.00"]),
    CorpusCase("Toaster $35, shipping $12", ["USD 35.00"]),
    CorpusCase("Free shipping on orders over $35. Toaster $49.99", ["USD 49.99"]),
    CorpusCase("Free shipping $499.00 Samsung monitor", ["USD 499.00"]),
    CorpusCase("Camera bag €39,90 zzgl. Versand 4,95 €", url: "https://shop.example.de/cb", ["EUR 39.90"]),
    CorpusCase("Delivery £4.99 or collect. Lamp £18", url: "https://market.example.co.uk/l", ["GBP 18.00"]),
    CorpusCase("Blender $59.99 ($6.50 shipping)", ["USD 59.99"]),
    CorpusCase("Chair $120 shipped anywhere in the lower 48", ["USD 120.00"]),
    CorpusCase("P&P £2.85. Mug £6.50", url: "https://market.example.co.uk/m", ["GBP 6.50"]),
    CorpusCase("Drone $299 · Shipping: $15.00 · Returns accepted", ["USD 299.00"]),
    CorpusCase("Versandkosten: 5,99 €. Preis: 129,00 €", url: "https://shop.example.de/v", ["EUR 129.00"]),

    // MARK: Was and now
    CorpusCase("Was $199.99, now $149.99", ["USD 149.99"]),
    CorpusCase("List Price: $249.99 Price: $179.00", ["USD 179.00"]),
    CorpusCase("RRP £89.99 Our price £64.99", url: "https://shop.example.co.uk/r", ["GBP 64.99"]),
    CorpusCase("UVP 499,00 € jetzt 379,00 €", url: "https://shop.example.de/u", ["EUR 379.00"]),
    CorpusCase("Reg. $59.99 Sale $39.99", ["USD 39.99"]),
    CorpusCase("Originally $850, now $600 or best offer", ["USD 600.00"]),
    CorpusCase("Compare at $120 — $79 today", ["USD 79.00"]),
    CorpusCase("MSRP $1,099. Street price $949", ["USD 949.00"]),
    CorpusCase("Previously £40. Now £25", url: "https://market.example.co.uk/p", ["GBP 25.00"]),
    CorpusCase("statt 89,99 € nur 59,99 €", url: "https://shop.example.de/s", ["EUR 59.99"]),

    // MARK: Monthly prices and instalments
    CorpusCase("MacBook Air $999 or $83.25/mo. for 12 mo.", ["USD 999.00"]),
    CorpusCase("Sofa $1,499 or 4 interest-free payments of $374.75", ["USD 1499.00"]),
    CorpusCase("As low as $42/mo with Affirm. Price $799", ["USD 799.00"]),
    CorpusCase("Treadmill £899 or £37.46 per month", url: "https://shop.example.co.uk/t", ["GBP 899.00"]),
    CorpusCase("Phone $25 a month for 36 months", []),
    CorpusCase("TV ₹45,990, EMI from ₹2,166", url: "https://shop.example.in/tv", ["INR 45990.00"]),
    CorpusCase("Fernseher 799 € oder 33,29 € mtl.", url: "https://shop.example.de/f", ["EUR 799.00"]),
    CorpusCase("Pay in 4 with Klarna: $24.99. Total $99.96", ["USD 99.96"]),
    CorpusCase("Rent it for $15/day or buy it for $220", ["USD 220.00"]),
    CorpusCase("Piano $41.58 for 24 months, or $998 outright", ["USD 998.00"]),

    // MARK: Savings and discounts
    CorpusCase("Save $50! Vacuum now $249", ["USD 249.00"]),
    CorpusCase("You save $30.00 (20%). Price $119.99", ["USD 119.99"]),
    CorpusCase("$40 off — Air fryer $89.99", ["USD 89.99"]),
    CorpusCase("Coupon: -$15 at checkout. Grill $329", ["USD 329.00"]),
    CorpusCase("Spare 100 €! Kaffeevollautomat 499 €", url: "https://shop.example.de/k", ["EUR 499.00"]),
    CorpusCase("Get a $50 gift card with purchase. Console $499.99", ["USD 499.99"]),
    CorpusCase("Trade-in value up to $120. Phone $699", ["USD 699.00"]),
    CorpusCase("Earn $25 in rewards. Mattress $1,199", ["USD 1199.00"]),

    // MARK: Lots, bundles, sets
    CorpusCase("Lot of 3 Sony remotes $45", []),
    CorpusCase("Bundle: console + 2 controllers £320", url: "https://market.example.co.uk/b", []),
    CorpusCase("Set of 6 dining chairs $900", []),
    CorpusCase("2 for $10 on all mugs", []),
    CorpusCase("Remote control $15 each, lot of 5 available", ["USD 15.00"]),
    CorpusCase("Job lot of vintage cameras £150", url: "https://market.example.co.uk/j", []),
    CorpusCase("Pack of 4 batteries $12.99. Single remote $19.99", ["USD 19.99"]),
    CorpusCase("LEGO bricks, 2 kg, $60 for all", []),

    // MARK: Ranges (the midpoint)
    CorpusCase("Typically sells for $100–$150 used", ["USD 125.00"]),
    CorpusCase("Expect to pay $100 - $150", ["USD 125.00"]),
    CorpusCase("Prices range from $80 to $120", ["USD 100.00"]),
    CorpusCase("Between $200 and $300 on the used market", ["USD 250.00"]),
    CorpusCase("Gebraucht 100-150 € je nach Zustand", url: "https://forum.example.de/t", ["EUR 125.00"]),
    CorpusCase("$100-150 depending on condition", ["USD 125.00"]),
    CorpusCase("£45–£55 in good condition", url: "https://guide.example.co.uk/g", ["GBP 50.00"]),
    CorpusCase("Sold prices: $310, $325 and $299", ["USD 310.00", "USD 325.00", "USD 299.00"]),
    CorpusCase("Asking 1.000-1.200 € VB", url: "https://kleinanzeigen.example.de/r", ["EUR 1100.00"]),
    CorpusCase("Worth $99.99 to $120.00 today", ["USD 110.00"]),  // 109.995, half to even

    // MARK: Used and new in one snippet
    CorpusCase("New: $499.00. Used from $320.00", ["USD 499.00", "USD 320.00"]),
    CorpusCase("Pre-owned Rolex Submariner $9,850", ["USD 9850.00"]),
    CorpusCase("Refurbished iPhone 13 $429", ["USD 429.00"]),
    CorpusCase("Open box Samsung soundbar $179.99", ["USD 179.99"]),
    CorpusCase("Brand new sealed PS5 $499", ["USD 499.00"]),
    CorpusCase("Gebraucht, sehr gut: 220 €", url: "https://kleinanzeigen.example.de/g", ["EUR 220.00"]),
    CorpusCase("Like new condition, $75 obo", ["USD 75.00"]),
    CorpusCase("New listing: Dyson V8 used good $140", ["USD 140.00"]),
    CorpusCase("NIB Instant Pot Duo $69", ["USD 69.00"]),
    CorpusCase("Second-hand armchair £60, collection only", url: "https://market.example.co.uk/a", ["GBP 60.00"]),

    // MARK: Numbers that are not prices
    CorpusCase("Sony KD-55X80K 55 in 4K HDR LED TV (2022)", []),
    CorpusCase("Rated 4.5 out of 5 stars by 1,234 customers", []),
    CorpusCase("Call 1-800-555-0199 for availability", []),
    CorpusCase("Dimensions 120 x 60 x 75 cm, weight 25 kg", []),
    CorpusCase("Model WH-1000XM4, 30 hour battery, Bluetooth 5.0", []),
    CorpusCase("Ships within 3-5 business days; 30-day returns", []),
    CorpusCase("iPhone 13 128GB A2482 released 2021", []),
    CorpusCase("Size US 10 / EU 44, width 2E", []),
    CorpusCase("Over 2,000 sold in the last 24 hours", []),
    CorpusCase("Order #4471-2290, tracking 9400 1000 0000 0000", []),
    CorpusCase("Save 20% on your first order with code WELCOME20", []),
    CorpusCase("Power 1500 W, 220-240 V, 50/60 Hz", []),
    CorpusCase("Item 2 of 12; page 3", []),
    CorpusCase("+44 20 7946 0958 or +1 (212) 555-0142", []),
    CorpusCase("Top 10 TVs of 2024: our picks", []),

    // MARK: Fees, bounds, promotions, auctions, parts
    CorpusCase("Laptop $899 + $72 tax", ["USD 899.00"]),
    CorpusCase("Sofa £650 incl. VAT", url: "https://shop.example.co.uk/s", ["GBP 650.00"]),
    CorpusCase("TVs under $500: Hisense 55\" $398", ["USD 398.00"]),
    CorpusCase("Starting bid $1.00. Current bid $86.00", ["USD 86.00"]),
    CorpusCase("For parts or not working: $35", []),
    CorpusCase("Deposit $200 required, bike $1,400", ["USD 1400.00"]),
    CorpusCase("Spend $50 to get free delivery. Dining table $650", ["USD 650.00"]),
    CorpusCase("Up to $300 off select TVs. LG C2 $1,296.99", ["USD 1296.99"]),
    CorpusCase("Kamera 450 € (Preis VB), Versand 6 €", url: "https://kleinanzeigen.example.de/k", ["EUR 450.00"]),
    CorpusCase("Average selling price $212.50 over the last 90 days", ["USD 212.50"]),
    CorpusCase("Recliner $250 obo, cash only, moving sale", ["USD 250.00"]),
    CorpusCase("Coffee table – £40 – collection from Leeds", url: "https://market.example.co.uk/c", ["GBP 40.00"]),

    // MARK: Titles with content
    CorpusCase("Good condition, some scratches. Shipping $8.", title: "Nintendo Switch OLED – $265", ["USD 265.00"]),
    CorpusCase("Three remotes, all working.", title: "Lot of 3 Apple TV remotes – $45", []),
    CorpusCase("Sold for $1,050 on 12 Oct. Sold for $980 on 2 Oct.", title: "Canon EOS R6 sold listings", ["USD 1050.00", "USD 980.00"]),
]
