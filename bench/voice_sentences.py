"""The held sentences of `bench.voice`: written for this bench (never taken from a corpus, never seen by the model
before), short everyday sentences about running a team's systems, no numbers (the normaliser reads only English
number words), 3–5 per language so one run stays short on a small CPU.

espeak-ng cannot read every script as written: its Japanese voice reads only kana (a kanji is spoken as "Chinese
letter"), and Debian's Mandarin dictionary turns most hanzi into English-sounding syllables. So for ja and zh the
clip is spoken from a reading written beside the sentence — kana for Japanese, tone-numbered pinyin for Chinese
(espeak-ng's `cmn-latn-pinyin` voice; the particle は written わ, as it is said) — and the transcript is scored against the sentence as it is written.
"""

from __future__ import annotations

HELD: dict[str, list[str]] = {
    "en": ["The kettle was still warm when the second alarm went off in the hallway.",
           "We moved the deploy window to Tuesday mornings so that nobody worked late on Fridays.",
           "She kept a notebook of every outage and read it again before each planning meeting.",
           "Most of the noise came from one flaky health check that nobody wanted to own.",
           "After the migration the reports loaded in seconds instead of minutes."],
    "es": ["El lunes por la mañana por fin apagamos la base de datos antigua.",
           "Casi todas las alertas venían de un solo servicio que nadie conocía.",
           "Después de la mudanza el equipo volvió a dormir toda la noche.",
           "Anotamos cada avería y leemos la lista antes de cada reunión."],
    "fr": ["Le lundi matin, nous avons enfin arrêté l'ancienne base de données.",
           "La plupart des alertes venaient d'un seul service que personne ne connaissait.",
           "Après le déménagement, l'équipe dormait de nouveau toute la nuit.",
           "Nous notons chaque panne et relisons la liste avant chaque réunion."],
    "de": ["Am Montag haben wir die alte Datenbank endlich abgeschaltet.",
           "Die meisten Fehler kamen aus einem einzigen Dienst, den niemand kannte.",
           "Nach dem Umzug war das Team ruhiger und schlief wieder durch.",
           "Wir schreiben jede Störung auf und lesen die Liste vor jeder Besprechung."],
    "pt": ["Na segunda-feira de manhã desligámos finalmente o servidor antigo.",
           "Quase todos os alertas vinham de um único serviço que ninguém conhecia.",
           "Depois da mudança a equipa voltou a dormir a noite inteira.",
           "Anotamos cada falha e lemos a lista antes de cada reunião."],
    "it": ["Lunedì mattina abbiamo finalmente spento il vecchio server.",
           "Quasi tutti gli avvisi arrivavano da un solo servizio che nessuno conosceva.",
           "Dopo il trasloco la squadra ha ricominciato a dormire tutta la notte.",
           "Scriviamo ogni guasto e rileggiamo l'elenco prima di ogni riunione."],
    "nl": ["Maandagochtend hebben we eindelijk de oude server uitgezet.",
           "Bijna alle meldingen kwamen van één dienst die niemand kende.",
           "Na de verhuizing sliep het team weer de hele nacht door.",
           "We schrijven elke storing op en lezen de lijst voor elk overleg."],
    "ja": ["月曜日の朝、古いサーバーをやっと止めました。",
           "ほとんどの警告は、誰も知らない一つのサービスから来ていました。",
           "引っ越しの後、チームはまた夜よく眠れるようになりました。",
           "障害を毎回書き留めて、会議の前に読み返します。"],
    "zh": ["星期一早上我们终于关掉了旧的服务器。",
           "几乎所有的警报都来自一个没人了解的服务。",
           "搬家以后，团队又能整夜安睡了。",
           "我们记下每一次故障，开会前再读一遍。"],
    "ar": ["يوم الاثنين صباحا أوقفنا أخيرا الخادم القديم.",
           "معظم التنبيهات كانت تأتي من خدمة واحدة لا يعرفها أحد.",
           "بعد الانتقال عاد الفريق إلى النوم طوال الليل.",
           "نكتب كل عطل ونقرأ القائمة قبل كل اجتماع."],
    "hi": ["सोमवार की सुबह हमने पुराना सर्वर बंद कर दिया।",
           "लगभग हर चेतावनी एक ही सेवा से आती थी जिसे कोई नहीं जानता था।",
           "घर बदलने के बाद टीम फिर से पूरी रात सोने लगी।",
           "हम हर गड़बड़ी लिखते हैं और हर बैठक से पहले सूची पढ़ते हैं।"],
    "sw": ["Jumatatu asubuhi hatimaye tulizima seva ya zamani.",
           "Karibu tahadhari zote zilitoka kwenye huduma moja ambayo hakuna aliyeijua.",
           "Baada ya kuhamia nyumba mpya timu ililala usiku mzima tena.",
           "Tunaandika kila hitilafu na kusoma orodha kabla ya kila mkutano."],
}

#: language -> (the espeak-ng voice, what it is given to say, sentence by sentence) where the written sentence
#: cannot be read by espeak-ng as it is (see above)
READINGS: dict[str, tuple[str, list[str]]] = {
    "ja": ("ja", ["げつようびの あさ、 ふるい サーバーを やっと とめました。",
                  "ほとんどの けいこくわ、 だれも しらない ひとつの サービスから きていました。",
                  "ひっこしの あと、 チームわ また よる よく ねむれるように なりました。",
                  "しょうがいを まいかい かきとめて、 かいぎの まえに よみかえします。"]),
    "zh": ("cmn-latn-pinyin", ["xing1 qi1 yi1 zao3 shang4 wo3 men5 zhong1 yu2 guan1 diao4 le5 jiu4 de5 fu2 wu4 qi4.",
                               "ji1 hu1 suo3 you3 de5 jing3 bao4 dou1 lai2 zi4 yi2 ge4 mei2 ren2 liao3 jie3 de5 fu2 "
                               "wu4.",
                               "ban1 jia1 yi3 hou4, tuan2 dui4 you4 neng2 zheng3 ye4 an1 shui4 le5.",
                               "wo3 men5 ji4 xia4 mei3 yi2 ci4 gu4 zhang4, kai1 hui4 qian2 zai4 du2 yi2 bian4."]),
}
