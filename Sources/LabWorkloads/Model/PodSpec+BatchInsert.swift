import LabCore

extension PodSpec {
    /// The dictionary a `BatchInsertRequest` takes for this pod, as an importer holds decoded JSON: keys for the
    /// values it has (none for nil), integers as `Int`.
    public var batchInsertObject: [String: Any] {
        var object: [String: Any] = [
            "name": name, "version": version, "authors": authors, "downloads": Int(downloads), "updated": updated,
        ]
        if let homepage { object["homepage"] = homepage }
        if let license { object["license"] = license }
        if let summary { object["summary"] = summary }
        return object
    }
}
