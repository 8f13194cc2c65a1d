/// Words receipts print around their fields, in general use (no store names).
enum Lexicon {
    /// Legal forms and business words that end or mark a trading name.
    static let companySuffixes: Set<String> = [
        "SDN", "BHD", "S/B", "SB", "BERHAD", "LTD", "LIMITED", "LLC", "LLP", "INC", "INCORPORATED", "CORP",
        "CORPORATION", "PLC", "GMBH", "AG", "SA", "SARL", "SAS", "SRL", "SPA", "BV", "NV", "PTY", "PTE", "CO",
        "COMPANY", "ENTERPRISE", "ENTERPRISES", "TRADING", "OY", "KK", "PVT",
    ]
    /// Words that say a line names a shop rather than a person or a place.
    static let businessWords: Set<String> = [
        "MINI",
        "SHOP", "STORE", "STORES", "MART", "MARKET", "SUPERMARKET", "HYPERMARKET", "MINIMARKET", "RESTAURANT",
        "RESTORAN", "RESTAURANTS", "CAFE", "CAFÉ", "COFFEE", "BAKERY", "BAKERIES", "KITCHEN", "FOOD", "FOODS",
        "SEAFOOD", "BAR", "GRILL", "PIZZA", "BURGER", "HARDWARE", "STATIONERY", "BOOK", "BOOKS", "BOOKSTORE",
        "PHARMACY", "FARMASI", "CHEMIST", "KEDAI", "GIFT", "GIFTS", "HOME", "DECO", "FURNITURE", "ELECTRICAL",
        "ELECTRONICS", "TRADERS", "TRADER", "HOLDINGS", "GROUP", "INDUSTRIES", "SERVICES", "SERVICE", "AUTO",
        "MOTOR", "MOTORS", "PETROL", "STATION", "OUTLET", "BOUTIQUE", "FASHION", "BEAUTY", "HEALTH", "OPTICAL",
        "CLINIC", "HOTEL", "DELI", "MAKAN", "NASI", "MEE", "KOPITIAM", "TEA", "DINER", "EATERY", "STEAKHOUSE",
        "CONFECTIONERY", "BISTRO", "PUB", "SALON", "LAUNDRY", "PRINTING", "MARKETING", "SUPPLY", "SUPPLIES",
        "CENTRE", "CENTER", "EMPORIUM", "GALLERY", "WAREHOUSE", "WHOLESALE", "DEPOT", "PHOTO", "TOYS", "SPORTS",
        "GARDEN", "NURSERY", "PET", "PETS", "FLORIST", "BUTCHER", "GROCER", "GROCERY", "GROCERIES", "LIQUOR",
        "TAILOR", "TAILORS", "TAILORING", "BARBER", "JEWELLER", "JEWELLERS", "JEWELLERY", "JEWELRY", "OPTICIAN",
        "CATERING", "HANDICRAFT", "HANDICRAFTS", "CRAFTS", "TEXTILE", "TEXTILES", "COSMETICS", "MEDICAL",
    ]
    /// Words that make a line part of an address.
    static let addressWords: Set<String> = [
        "JALAN", "JLN", "JL", "LOT", "TAMAN", "TMN", "LORONG", "LRG", "PERSIARAN", "KAWASAN", "BANDAR", "SEKSYEN",
        "KAMPUNG", "KG", "BATU", "PUSAT", "KOMPLEKS", "WISMA", "MENARA", "PLAZA", "MALL", "PARK", "SQUARE",
        "STREET", "ST", "ROAD", "RD", "AVENUE", "AVE", "BOULEVARD", "BLVD", "LANE", "LN", "DRIVE", "DR", "WAY",
        "HIGHWAY", "HWY", "FLOOR", "FLR", "LEVEL", "LVL", "SUITE", "STE", "UNIT", "BLOCK", "BLK", "BUILDING",
        "BLDG", "TOWER", "STRASSE", "STR", "RUE", "VIA", "CALLE", "PLATZ", "WEG", "GROUND", "NO",
        "INDUSTRI", "PERINDUSTRIAN",
    ]
    /// Three-letter street words that are no ordinary word: one look-alike letter off (`LUT`, `IMN`, `JIn`) is still them
    /// (not `FLR`, one letter from `FIR`).
    static let shortAddressWords: Set<String> = ["LOT", "JLN", "TMN", "BLK", "LRG"]
    /// Regions and countries: address words when nothing says the line is a trading name.
    static let placeWords: Set<String> = [
        "JOHOR", "SELANGOR", "KUALA", "LUMPUR", "PENANG", "PERAK", "KEDAH", "MELAKA", "PAHANG", "SABAH",
        "SARAWAK", "MALAYSIA", "SINGAPORE", "USA", "DARUL", "EHSAN", "TAKZIM", "KL",
    ]
    /// Words of the header lines that are not the vendor.
    static let headerNoise: Set<String> = [
        "RECEIPT", "INVOICE", "TAX", "SIMPLIFIED", "OFFICIAL", "COPY", "WELCOME", "CASHIER", "BILL", "ORDER",
        "TABLE", "THANK", "THANKS", "CUSTOMER", "MEMBER", "DUPLICATE", "REPRINT", "TERMINAL", "SALES", "CASH",
        "SALE", "DOCKET", "QUOTATION", "CHECK", "RESIT", "TRANSACTION", "TRANS", "SLIP", "POS",
    ]
    /// Words of registration, tax id and contact lines.
    static let idWords: Set<String> = [
        "GST", "SST", "VAT", "REG", "REGISTRATION", "ROC", "TEL", "TELEPHONE", "PHONE",
        "FAX", "HP", "EMAIL", "E-MAIL", "WWW", "HTTP", "HTTPS", "ABN", "ACN", "EIN", "TIN", "UST", "USTID",
        "SIRET", "NIF", "CIF", "MOBILE", "WHATSAPP", "WEBSITE", "ID", "BRN",
    ]
    /// Words long enough to be found inside words a recogniser glued together (see `gluedWords`).
    static let gluedVocabulary: Set<String> = companySuffixes.union(businessWords).union(addressWords).union(headerNoise)
        .filter { $0.count >= 4 && $0.allSatisfy(\.isLetter) }
    /// The words a digit printed for a look-alike letter is read back into (see `ReceiptExtractor.lookalikeWords`).
    static let lookalikeVocabulary: Set<String> = companySuffixes.union(businessWords).union(addressWords).union(placeWords)
        .union(headerNoise).union(idWords).filter { $0.allSatisfy(\.isLetter) }
    /// `gluedVocabulary` in alphabetical order, sorted once (the order glued words are reported in).
    static let gluedVocabularyInOrder: [String] = gluedVocabulary.sorted()
    /// Legal forms and business words of four letters or more, longest first: where a glued store name is set apart.
    static let nameWordsLongestFirst: [String] = businessWords.union(companySuffixes).filter { $0.count >= 4 && $0.allSatisfy(\.isLetter) }
        .sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
}
